import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.ts';
import { parseEventTypes } from './event.service.ts';

describe('parseEventTypes', () => {
  it.each([
    [undefined, undefined],
    [[], undefined],
    [['*'], undefined],
    [['member.created,*'], undefined],
    [['member.created'], { eventTypes: ['member.created'], objectTypes: [] }],
    [['member.created,enrollment.approved'], { eventTypes: ['member.created', 'enrollment.approved'], objectTypes: [] }],
    [['member.created', ' enrollment.approved ,'], { eventTypes: ['member.created', 'enrollment.approved'], objectTypes: [] }],
    [['enrollment.*'], { eventTypes: [], objectTypes: ['enrollment'] }],
    [['enrollment.*,member.deleted', 'enrollment.*'], { eventTypes: ['member.deleted'], objectTypes: ['enrollment'] }],
    [['notification.created'], { eventTypes: ['notification.created'], objectTypes: [] }],
  ] as const)('when given %j, then %j', (values, expected) => {
    expect(parseEventTypes(values as readonly string[] | undefined)).toEqual(expected);
  });

  it.each([['member.exploded'], ['spaceship.*'], ['member'], ['.*'], ['api_key.created'], ['Member.created']])(
    'when given %s, then a 400 naming type',
    (value) => {
      let thrown: unknown;
      try {
        parseEventTypes([value]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect(thrown).toMatchObject({ statusCode: 400, type: 'invalid_request' });
    },
  );
});
