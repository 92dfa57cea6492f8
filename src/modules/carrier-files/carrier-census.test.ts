import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../../shared/errors.ts';
import { parseCensus } from './carrier-census.ts';

describe('reading a carrier census', () => {
  it('reads columns in any order, blanks as absent, and reports bad rows by line and column', () => {
    const { rows, problems } = parseCensus(
      '\uFEFFplan,Subscriber_ID,relationship,line_of_coverage,dob\r\nGold,mem_1,employee,medical,\r\nGold,mem_1,child,dental,2015-02-29\r\n\r\nGold,,employee,medical,\r\n',
    );
    expect(rows).toEqual([
      {
        line: 2,
        subscriberId: 'mem_1',
        relationship: 'employee',
        lineOfCoverage: 'medical',
        plan: 'Gold',
        firstName: null,
        lastName: null,
        dob: null,
        coverageLevels: null,
        coverageStart: null,
        coverageEnd: null,
      },
    ]);
    expect(problems).toEqual([
      { line: 3, column: 'dob', message: 'Must be a calendar date, YYYY-MM-DD.' },
      { line: 5, column: 'subscriber_id', message: 'Required.' },
    ]);
  });

  it('refuses a file without the required columns', () => {
    expect(() => parseCensus('subscriber_id,plan\nmem_1,Gold\n')).toThrow(ValidationFailed);
    expect(() => parseCensus('')).toThrow(ValidationFailed);
  });
});
