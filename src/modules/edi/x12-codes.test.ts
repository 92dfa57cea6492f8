import { describe, expect, it } from 'vitest';
import { EMPLOYMENT_STATUSES } from '../members/member.table.ts';
import { COVERAGE_TIERS, DEPENDENT_RELATIONSHIPS } from '../plans/coverage-tier.ts';
import { LINES_OF_COVERAGE } from '../plans/plan.table.ts';
import {
  BENEFIT_STATUS_CODES,
  COVERAGE_LEVEL_CODES,
  DATE_QUALIFIERS,
  EMPLOYMENT_STATUS_CODES,
  FILE_ACTION_CODES,
  INDIVIDUAL_RELATIONSHIP_CODES,
  INSURANCE_LINE_CODES,
  INSURANCE_LINE_CODE_LIST,
  MAINTENANCE_REASON_CODES,
  MAINTENANCE_TYPE_CODES,
  lookupCode,
} from './x12-codes.ts';

/** The code lists of 005010X220A1 for the elements the tables fill: a table row must hold one of these. */
const GUIDE = {
  INS02: [
    '01',
    '03',
    '04',
    '05',
    '06',
    '07',
    '08',
    '09',
    '10',
    '11',
    '12',
    '13',
    '14',
    '15',
    '16',
    '17',
    '18',
    '19',
    '23',
    '24',
    '25',
    '26',
    '31',
    '38',
    '53',
    '60',
    'D2',
    'G8',
    'G9',
  ],
  INS03: ['001', '021', '024', '025', '030'],
  INS04: [
    ...['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '14', '15', '16', '17', '18', '20', '21', '22', '25', '26', '27', '28', '29'],
    ...['31', '32', '33', '37', '38', '39', '40', '41', '43', '59', 'AA', 'AB', 'AC', 'AD', 'AE', 'AF', 'AG', 'AH', 'AI', 'AJ', 'AL', 'EC', 'XN', 'XT'],
  ],
  INS05: ['A', 'C', 'S', 'T'],
  INS08: ['AC', 'AO', 'AU', 'FT', 'L1', 'PT', 'RT', 'TE'],
  HD05: ['CHD', 'DEP', 'E1D', 'E2D', 'E3D', 'E5D', 'E6D', 'E7D', 'E8D', 'E9D', 'ECH', 'EMP', 'ESP', 'FAM', 'IND', 'SPC', 'SPO', 'TWO'],
  DTP01: ['007', '303', '336', '337', '356', '357', '348', '349'],
  BGN08: ['2', '4', 'RX'],
};

describe('the 834 code tables', () => {
  it('when every table is read, then each code is one the guide lists for its element', () => {
    const tables: [string, readonly string[], Record<string, string | null>][] = [
      ['INS02', GUIDE.INS02, INDIVIDUAL_RELATIONSHIP_CODES],
      ['INS03', GUIDE.INS03, MAINTENANCE_TYPE_CODES],
      ['INS04', GUIDE.INS04, MAINTENANCE_REASON_CODES],
      ['INS05', GUIDE.INS05, BENEFIT_STATUS_CODES],
      ['INS08', GUIDE.INS08, EMPLOYMENT_STATUS_CODES],
      ['HD03', INSURANCE_LINE_CODE_LIST, INSURANCE_LINE_CODES],
      ['HD05', GUIDE.HD05, COVERAGE_LEVEL_CODES],
      ['DTP01', GUIDE.DTP01, DATE_QUALIFIERS],
      ['BGN08', GUIDE.BGN08, FILE_ACTION_CODES],
    ];
    for (const [element, list, table] of tables) {
      for (const [key, value] of Object.entries(table)) {
        if (value !== null) expect(list, `${element} ${key}`).toContain(value);
      }
    }
  });

  it('when the service enums are listed, then every value has a row', () => {
    expect(Object.keys(INDIVIDUAL_RELATIONSHIP_CODES).sort()).toEqual(['self', ...DEPENDENT_RELATIONSHIPS].sort());
    expect(Object.keys(INSURANCE_LINE_CODES).sort()).toEqual([...LINES_OF_COVERAGE].sort());
    expect(Object.keys(COVERAGE_LEVEL_CODES).sort()).toEqual([...COVERAGE_TIERS].sort());
    for (const status of EMPLOYMENT_STATUSES) expect(Object.keys(EMPLOYMENT_STATUS_CODES)).toContain(status);
  });

  it.each([
    ['medical', 'HLT'],
    ['dental', 'DEN'],
    ['vision', 'VIS'],
    ['short_term_disability', 'STD'],
    ['long_term_disability', 'LTD'],
  ] as const)('when the line is %s, then HD03 is %s', (line, code) => {
    expect(INSURANCE_LINE_CODES[line]).toBe(code);
  });

  it('when a line is not health coverage, then 005010X220A1 has no HD03 code for it', () => {
    const withoutCode = LINES_OF_COVERAGE.filter((line) => INSURANCE_LINE_CODES[line] === null);
    expect(withoutCode).toEqual([
      'life',
      'accidental_death',
      'accident',
      'critical_illness',
      'cancer',
      'hospital_indemnity',
      'healthcare_fsa',
      'limited_purpose_fsa',
      'dependent_care_fsa',
      'hsa',
    ]);
  });

  it('when the subscriber is self and a spouse-like dependent is looked up, then INS02 tells them apart', () => {
    expect([INDIVIDUAL_RELATIONSHIP_CODES.self, INDIVIDUAL_RELATIONSHIP_CODES.spouse, INDIVIDUAL_RELATIONSHIP_CODES.domestic_partner]).toEqual([
      '18',
      '01',
      '53',
    ]);
    expect(INDIVIDUAL_RELATIONSHIP_CODES.ex_spouse).toBe('25');
  });
});

describe('lookupCode', () => {
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', ''])('when the key is %j, then no code is found', (key) => {
    expect(lookupCode(MAINTENANCE_TYPE_CODES, key)).toBeUndefined();
  });

  it('when the key is a row, then its code is found', () => {
    expect(lookupCode(MAINTENANCE_TYPE_CODES, 'addition')).toBe('021');
    expect(lookupCode(INSURANCE_LINE_CODES, 'life')).toBeNull();
  });
});
