import { describe, expect, it } from 'vitest';
import { acceptsEvent, eventPayload } from './webhook-fan-out.ts';

describe('acceptsEvent', () => {
  const event = { event_type: 'enrollment.approved', object_type: 'enrollment' as const };
  it.each([
    [['*'], true],
    [['enrollment.approved'], true],
    [['enrollment.*'], true],
    [['member.*', 'enrollment.approved'], true],
    [['enrollment.created'], false],
    [['member.*'], false],
    [['enrollment_x.*'], false],
  ])('when enabled_events is %j, then an enrollment.approved event is taken: %s', (filters, taken) => {
    expect(acceptsEvent(filters, event)).toBe(taken);
  });
});

describe('eventPayload', () => {
  it('when an event is sent, then the body is the event as GET /events shows it, as JSON', () => {
    const body = eventPayload({
      id: 'evt_1',
      provider_id: 'prov_1',
      employer_id: 'er_1',
      event_type: 'member.updated',
      object_type: 'member',
      object_id: 'mem_1',
      data: '{"member":"mem_1","employer":"er_1"}',
      created_at: '2026-03-02T15:00:00.000Z',
    });
    expect(JSON.parse(body)).toEqual({
      id: 'evt_1',
      object: 'event',
      event_type: 'member.updated',
      object_type: 'member',
      object_id: 'mem_1',
      employer: 'er_1',
      data: { member: 'mem_1', employer: 'er_1' },
      created_at: '2026-03-02T15:00:00.000Z',
    });
    expect(body).not.toContain('prov_1');
  });
});
