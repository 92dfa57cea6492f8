import { describe, expect, it } from 'vitest';
import { fieldChanges, matchDependent, matchEmployee, needsTerminationConfirmation, rowWarnings } from './census-rules.ts';
import { readCensusRow } from './census-row-reader.ts';

describe('matchEmployee', () => {
  const a = { id: 'mem_a', payrollId: 'E1' };
  const b = { id: 'mem_b', payrollId: null };
  const c = { id: 'mem_c', payrollId: 'E9' };
  it.each([
    ['by employee_id', a, undefined, { kind: 'found', memberId: 'mem_a', by: 'employee_id' }],
    ['by employee_id and the same SSN', a, a, { kind: 'found', memberId: 'mem_a', by: 'employee_id' }],
    ['by SSN of a member without an employee id', undefined, b, { kind: 'found', memberId: 'mem_b', by: 'ssn' }],
    ['nobody', undefined, undefined, { kind: 'new' }],
  ] as const)('%s', (_label, byId, bySsn, expected) => {
    expect(matchEmployee('E1', byId, bySsn)).toEqual(expected);
  });
  it('when the employee id and the SSN name two members, then it is a conflict on ssn', () => {
    expect(matchEmployee('E1', a, b)).toMatchObject({ kind: 'conflict', column: 'ssn' });
  });
  it('when the SSN is of a member known by another employee id, then it is a conflict on employee_id', () => {
    expect(matchEmployee('E1', undefined, c)).toMatchObject({ kind: 'conflict', column: 'employee_id' });
  });
});

describe('matchDependent', () => {
  const kids = [
    { id: 'dep_1', firstName: 'José', dob: '2015-06-01', ssnLastFour: '6789' },
    { id: 'dep_2', firstName: 'Ann', dob: '2017-01-01', ssnLastFour: null },
  ];
  it('matches by SSN first, decrypting only last-four matches', () => {
    const asked: string[] = [];
    const found = matchDependent(kids, { firstName: 'Other', dob: '2000-01-01', ssn: '123456789' }, (d) => (asked.push(d.id), true));
    expect(found?.id).toBe('dep_1');
    expect(asked).toEqual(['dep_1']);
  });
  it('else by first name (as an 834 spells it, any case) and date of birth', () => {
    expect(matchDependent(kids, { firstName: 'JOSE', dob: '2015-06-01', ssn: undefined }, () => false)?.id).toBe('dep_1');
    expect(matchDependent(kids, { firstName: 'Jose', dob: '2015-06-02', ssn: undefined }, () => false)).toBeUndefined();
  });
});

describe('fieldChanges', () => {
  it('lists given fields that differ, old -> new, and the SSN only as changed', () => {
    const current = {
      first_name: 'Ann',
      dob: '1980-01-01',
      subclasses: ['sub_a', 'sub_b'],
      address: { line1: '1 Elm', line2: null, city: 'X', state: 'IL', zip_code: '62701' },
    };
    expect(
      fieldChanges(
        current,
        {
          first_name: 'Ann',
          dob: '1980-01-02',
          subclasses: ['sub_b', 'sub_a'],
          address: { line1: '1 Elm', line2: null, city: 'X', state: 'IL', zip_code: '62701' },
          ssn: '123456789',
        },
        true,
      ),
    ).toEqual([
      { field: 'dob', old: '1980-01-01', new: '1980-01-02' },
      { field: 'ssn', old: null, new: 'changed' },
    ]);
  });
});

describe('needsTerminationConfirmation (strictly more than the share)', () => {
  it.each([
    [1, 10, 0.1, false],
    [2, 10, 0.1, true],
    [0, 0, 0.1, false],
    [1, 0, 0.1, true],
    [3, 30, 0.1, false],
    [4, 30, 0.1, true],
  ])('%i of %i at %d: %s', (terminations, employed, share, expected) => {
    expect(needsTerminationConfirmation(terminations, employed, share)).toBe(expected);
  });
});

describe('rowWarnings', () => {
  const base = { line: 2, values: {}, hasCoverage: true, today: '2026-03-02', target: 'member' as const };
  it('warns of an SSN or dob change only for someone with coverage', () => {
    const changes = [
      { field: 'ssn', old: null, new: 'changed' },
      { field: 'dob', old: '1980-01-01', new: '1980-01-02' },
    ];
    expect(rowWarnings({ ...base, changes }).map((w) => w.code)).toEqual(['ssn_changed_with_coverage', 'dob_changed_with_coverage']);
    expect(rowWarnings({ ...base, changes, hasCoverage: false })).toEqual([]);
  });
  it('warns of a termination date before today, not of today', () => {
    expect(rowWarnings({ ...base, changes: [{ field: 'termination_date', old: null, new: '2026-03-01' }] }).map((w) => w.code)).toEqual([
      'termination_in_past',
    ]);
    expect(rowWarnings({ ...base, changes: [{ field: 'termination_date', old: null, new: '2026-03-02' }] })).toEqual([]);
  });
  it('warns of names past the 834 lengths (NM104 35, NM103 60)', () => {
    expect(rowWarnings({ ...base, changes: [], values: { first_name: 'A'.repeat(35), last_name: 'B'.repeat(60) } })).toEqual([]);
    expect(rowWarnings({ ...base, changes: [], values: { first_name: 'A'.repeat(36) } }).map((w) => w.column)).toEqual(['first_name']);
  });
});

describe('readCensusRow', () => {
  it('reads each column through its reader, blank cells as not given', () => {
    const read = readCensusRow(2, {
      employee_id: 'E1',
      relationship: 'Employee',
      sex: 'F',
      phone: '(217) 555-0100',
      scheduled_hours: '37.5',
      annual_pay: '$52,000.50',
      ssn: '123-45-6789',
      first_name: '',
    });
    expect(read.problems).toEqual([]);
    expect(read.row?.values).toEqual({ biological_sex: 'female', phone_number: '2175550100', hours_worked: 37.5, annual_pay: 5_200_050, ssn: '123456789' });
  });
  it('reports one problem per column at fault, never the SSN itself', () => {
    const read = readCensusRow(3, { employee_id: 'E1', relationship: 'cousin', ssn: '000123456', state: 'ZZ', termination_reason: 'voluntary' });
    expect(read.problems.map((p) => p.column)).toEqual(['relationship', 'ssn', 'state', 'address_line1', 'termination_reason']);
    expect(JSON.stringify(read.problems)).not.toContain('000123456');
  });
  it('refuses formula starts, control characters and over-long cells', () => {
    const read = readCensusRow(4, { employee_id: 'E1', relationship: 'employee', first_name: '=1+1', last_name: 'a\u0000b', city: 'x'.repeat(256) });
    expect(read.problems.map((p) => p.column)).toEqual(['last_name', 'city', 'first_name']);
  });
});
