import { describe, expect, it } from 'vitest';
import { cancelledByTermination, coverageLostBy, enrollmentStart, lastDayWhenReplaced, terminationEffect, undoableOn, type TerminationEffect } from './coverage-rules.ts';

describe('lastDayWhenReplaced', () => {
  const cases: [string | null, string, string][] = [
    [null, '2026-06-01', '2026-05-31'],
    ['2026-12-31', '2026-06-01', '2026-05-31'],
    ['2026-05-31', '2026-06-01', '2026-05-31'],
    ['2026-05-30', '2026-06-01', '2026-05-30'],
    ['2026-12-31', '2027-01-01', '2026-12-31'],
    [null, '2024-03-01', '2024-02-29'],
  ];

  it.each(cases)('when the coverage ends %s and the next starts %s, then it ends %s', (effectiveEnd, start, expected) => {
    expect(lastDayWhenReplaced({ effectiveEnd }, start)).toBe(expected);
  });
});

describe('terminationEffect (coverage end 2026-11-30)', () => {
  const END = '2026-11-30';
  const cases: [string, string | null, string | null, TerminationEffect | undefined][] = [
    ['in force, open-ended', '2026-01-01', null, { kind: 'end', lastDay: END }],
    ['in force, running to the plan year end', '2026-01-01', '2026-12-31', { kind: 'end', lastDay: END }],
    ['ending the day after the end (first day out)', '2026-01-01', '2026-12-01', { kind: 'end', lastDay: END }],
    ['ending on the end (last day in)', '2026-01-01', END, undefined],
    ['ending before the end', '2026-01-01', '2026-06-30', undefined],
    ['starting on the end (last day in)', END, '2026-12-31', { kind: 'end', lastDay: END }],
    ['starting the day after the end (first day out)', '2026-12-01', '2026-12-31', { kind: 'cancel', lastDay: END }],
    ['next plan year, approved in open enrollment', '2027-01-01', '2027-12-31', { kind: 'cancel', lastDay: '2026-12-31' }],
    ['next plan year, already cancelled', '2027-01-01', '2026-12-31', undefined],
    ['without a start', null, null, { kind: 'end', lastDay: END }],
  ];

  it.each(cases)('when the coverage is %s, then the termination does what it should', (_name, effectiveStart, effectiveEnd, expected) => {
    expect(terminationEffect({ effectiveStart, effectiveEnd }, END)).toEqual(expected);
  });
});

describe('enrollmentStart and cancelledByTermination (coverage end 2026-11-30)', () => {
  const cases: [string, string | null, string[], string | undefined, boolean][] = [
    ['its own start on the end (last day in)', '2026-11-30', ['2027-01-01'], '2026-11-30', false],
    ['its own start the day after (first day out)', '2026-12-01', [], '2026-12-01', true],
    ['no own start: the earliest plan start', null, ['2027-01-01', '2026-12-01'], '2026-12-01', true],
    ['no own start, plans starting on the end', null, ['2026-11-30'], '2026-11-30', false],
    ['no dates at all (starts when approved)', null, [], undefined, false],
  ];

  it.each(cases)('when the enrollment has %s, then it is cancelled only if it starts after the end', (_name, own, plans, start, cancelled) => {
    expect(enrollmentStart(own, plans)).toBe(start);
    expect(cancelledByTermination(enrollmentStart(own, plans), '2026-11-30')).toBe(cancelled);
  });
});

describe('undoableOn and coverageLostBy (coverage end 2026-11-30)', () => {
  const cases: [string, boolean, boolean][] = [
    ['2026-11-29', true, false],
    ['2026-11-30', true, false],
    ['2026-12-01', false, true],
  ];

  it.each(cases)('on %s, undoable %s, coverage lost %s', (day, undoable, lost) => {
    expect(undoableOn('2026-11-30', day)).toBe(undoable);
    expect(coverageLostBy('2026-11-30', day)).toBe(lost);
  });
});
