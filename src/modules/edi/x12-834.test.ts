import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { X12parser, type FormattedSegment } from 'x12-parser';
import { DEPENDENT_RELATIONSHIPS, type DependentRelationship } from '../plans/coverage-tier.ts';
import { INDIVIDUAL_RELATIONSHIP_CODES } from './x12-codes.ts';
import { write834, write834ToString } from './x12-834.ts';
import type { Dependent834, Envelope834, Subscriber834 } from './x12-834-records.ts';
import { ELEMENT_LENGTHS, ISA_LENGTH, X12ValueError, addressLineElements, sanitizeElement, x12Date, x12SocialSecurityNumber } from './x12-elements.ts';

const ENVELOPE: Envelope834 = {
  sender: { qualifier: 'ZZ', id: 'BENEFITSCO' },
  receiver: { qualifier: '30', id: '987654321' },
  interchangeControlNumber: 42,
  acknowledgementRequested: true,
  usage: 'test',
  createdAt: new Date('2026-11-25T14:05:59Z'),
  applicationSenderCode: 'BENEFITSCO',
  applicationReceiverCode: 'CARRIER1',
  groupControlNumber: 7,
  transactionSetControlNumber: 12,
  referenceId: 'FILE-2026-11-25',
  action: 'change',
  masterPolicyNumber: 'GRP-100',
  fileEffectiveDate: '2027-01-01',
  sponsor: { name: 'Acme Widgets, Inc.', fein: '123456789' },
  payer: { name: 'Example Health Plan', idQualifier: 'FI', id: '987654321' },
};

function subscriber(overrides: Partial<Subscriber834> = {}): Subscriber834 {
  return {
    subscriberId: 'E1001',
    employmentStatus: 'full_time',
    maintenanceType: 'addition',
    maintenanceReason: 'initial_enrollment',
    name: { last: 'Núñez', first: 'José', middle: 'Ángel', suffix: 'Jr' },
    ssn: '123456789',
    address: { line1: '1 Main St', line2: 'Apt 2', city: 'Springfield', state: 'IL', postalCode: '62701' },
    dateOfBirth: '1980-02-29',
    sex: 'male',
    memberPolicyNumber: 'POL-77',
    employmentBegin: '2020-03-01',
    eligibilityBegin: '2020-04-01',
    coverages: [
      { maintenanceType: 'addition', line: 'medical', planDescription: 'PPO 500', tier: 'member_family', benefitBegin: '2027-01-01' },
      { maintenanceType: 'addition', line: 'dental', tier: 'member_family', benefitBegin: '2027-01-01', benefitEnd: '2027-12-31' },
    ],
    ...overrides,
  };
}

function dependent(relationship: DependentRelationship, overrides: Partial<Dependent834> = {}): Dependent834 {
  return {
    relationship,
    maintenanceType: 'addition',
    name: { last: 'Nunez', first: 'Maria' },
    dateOfBirth: '1982-05-01',
    sex: 'female',
    coverages: [{ maintenanceType: 'addition', line: 'medical', benefitBegin: '2027-01-01' }],
    ...overrides,
  };
}

/** The segments of X12 text (or a stream of chunks) as the third-party x12-parser reads them. */
async function parsed(source: string | Iterable<string> | AsyncIterable<string>): Promise<FormattedSegment[]> {
  const segments: FormattedSegment[] = [];
  await pipeline(Readable.from(typeof source === 'string' ? [source] : source), new X12parser(), async (stream: AsyncIterable<FormattedSegment>) => {
    for await (const parsedSegment of stream) segments.push(parsedSegment);
  });
  return segments;
}

function only(segments: FormattedSegment[], name: string, first?: string): FormattedSegment {
  const found = segments.filter((candidate) => candidate.name === name && (first === undefined || candidate['1'] === first));
  expect(found, `${name}${first === undefined ? '' : `*${first}`}`).toHaveLength(1);
  return found[0] as FormattedSegment;
}

async function refusal(write: () => Promise<unknown>): Promise<X12ValueError> {
  const error = await write().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(X12ValueError);
  return error as X12ValueError;
}

describe('write834: structure', () => {
  it('when a subscriber with a spouse and a child is written, then x12-parser reads the 834 segments in guide order', async () => {
    const text = await write834ToString(ENVELOPE, [
      subscriber({ dependents: [dependent('spouse'), dependent('child', { name: { last: 'Nunez', first: 'Ana' } })] }),
    ]);
    const names = (await parsed(text)).map((segment) =>
      segment.name === 'REF' || segment.name === 'DTP' || segment.name === 'N1' ? `${segment.name}*${segment['1']}` : segment.name,
    );

    expect(names).toEqual([
      'ISA',
      'GS',
      'ST',
      'BGN',
      'REF*38',
      'DTP*007',
      'N1*P5',
      'N1*IN',
      // 2000 subscriber
      'INS',
      'REF*0F',
      'REF*1L',
      'DTP*336',
      'DTP*356',
      'NM1',
      'N3',
      'N4',
      'DMG',
      'HD',
      'DTP*348',
      'HD',
      'DTP*348',
      'DTP*349',
      // 2000 spouse
      'INS',
      'REF*0F',
      'NM1',
      'DMG',
      'HD',
      'DTP*348',
      // 2000 child
      'INS',
      'REF*0F',
      'NM1',
      'DMG',
      'HD',
      'DTP*348',
      'SE',
      'GE',
      'IEA',
    ]);
  });

  it('when written, then the ISA is exactly 106 characters and declares * ^ : ~', async () => {
    for (const id of ['A', 'BENEFITSCO', 'X'.repeat(15)]) {
      const text = await write834ToString({ ...ENVELOPE, sender: { qualifier: 'ZZ', id }, receiver: { qualifier: '01', id } }, []);
      const isa = text.slice(0, text.indexOf('~') + 1);
      expect(isa).toHaveLength(ISA_LENGTH);
      expect(isa.charAt(3)).toBe('*');
      expect(isa.charAt(82)).toBe('^');
      expect(isa.charAt(104)).toBe(':');
      expect(isa.charAt(105)).toBe('~');
    }
  });

  it('when written, then the envelope and header carry the values given', async () => {
    const segments = await parsed(await write834ToString(ENVELOPE, [subscriber()]));

    expect(only(segments, 'ISA')).toMatchObject({
      '1': '00',
      '3': '00',
      '5': 'ZZ',
      '6': 'BENEFITSCO',
      '7': '30',
      '8': '987654321',
      '9': '261125',
      '10': '1405',
      '11': '^',
      '12': '00501',
      '13': '000000042',
      '14': '1',
      '15': 'T',
      '16': ':',
    });
    expect(only(segments, 'GS')).toMatchObject({
      '1': 'BE',
      '2': 'BENEFITSCO',
      '3': 'CARRIER1',
      '4': '20261125',
      '5': '1405',
      '6': '7',
      '7': 'X',
      '8': '005010X220A1',
    });
    expect(only(segments, 'ST')).toMatchObject({ '1': '834', '2': '0012', '3': '005010X220A1' });
    expect(only(segments, 'BGN')).toMatchObject({ '1': '00', '2': 'FILE-2026-11-25', '3': '20261125', '4': '1405', '5': 'UT', '8': '2' });
    expect(only(segments, 'REF', '38')['2']).toBe('GRP-100');
    expect(only(segments, 'DTP', '007')).toMatchObject({ '2': 'D8', '3': '20270101' });
    expect(only(segments, 'N1', 'P5')).toMatchObject({ '2': 'Acme Widgets, Inc.', '3': 'FI', '4': '123456789' });
    expect(only(segments, 'N1', 'IN')).toMatchObject({ '2': 'Example Health Plan', '3': 'FI', '4': '987654321' });
  });

  it('when written, then SE01 counts ST through SE and every trailer matches its header', async () => {
    const segments = await parsed(await write834ToString(ENVELOPE, [subscriber({ dependents: [dependent('spouse')] }), subscriber({ subscriberId: 'E1002' })]));
    const st = segments.findIndex((segment) => segment.name === 'ST');
    const se = segments.findIndex((segment) => segment.name === 'SE');

    expect(only(segments, 'SE')).toEqual({ name: 'SE', '1': String(se - st + 1), '2': '0012' });
    expect(only(segments, 'GE')).toEqual({ name: 'GE', '1': '1', '2': '7' });
    expect(only(segments, 'IEA')).toEqual({ name: 'IEA', '1': '1', '2': '000000042' });
  });

  it('when there are no members, then the file is still a whole interchange', async () => {
    const segments = await parsed(await write834ToString(ENVELOPE, []));
    expect(segments.map((segment) => segment.name)).toEqual(['ISA', 'GS', 'ST', 'BGN', 'REF', 'DTP', 'N1', 'N1', 'SE', 'GE', 'IEA']);
    expect(only(segments, 'SE')['1']).toBe('7');
  });

  it('when newlineAfterSegment is on, then each segment ends in ~ and a line feed and reads the same', async () => {
    const members = [subscriber({ dependents: [dependent('child')] })];
    const plain = await write834ToString(ENVELOPE, members);
    const lines = await write834ToString(ENVELOPE, members, { newlineAfterSegment: true });

    expect(lines).toBe(plain.replaceAll('~', '~\n'));
    // x12-parser reads the line feed after the last ~ as one more, empty, segment.
    expect((await parsed(lines)).filter((segment) => segment.name !== '')).toEqual(await parsed(plain));
  });

  it('when the action is replace or verify, then BGN08 is RX or 4', async () => {
    expect(only(await parsed(await write834ToString({ ...ENVELOPE, action: 'replace' }, [])), 'BGN')['8']).toBe('RX');
    expect(only(await parsed(await write834ToString({ ...ENVELOPE, action: 'verify', usage: 'production' }, [])), 'BGN')['8']).toBe('4');
  });
});

describe('write834: member loops', () => {
  it('when a subscriber is written, then INS, REF, DTP, NM1, N3, N4, DMG, HD and DTP carry its values', async () => {
    const segments = await parsed(await write834ToString(ENVELOPE, [subscriber()]));

    expect(only(segments, 'INS')).toEqual({ name: 'INS', '1': 'Y', '2': '18', '3': '021', '4': '28', '5': 'A', '6': '', '7': '', '8': 'FT' });
    expect(only(segments, 'REF', '0F')['2']).toBe('E1001');
    expect(only(segments, 'REF', '1L')['2']).toBe('POL-77');
    expect(only(segments, 'DTP', '336')['3']).toBe('20200301');
    expect(only(segments, 'DTP', '356')['3']).toBe('20200401');
    // Accents folded to the X12 character set; NM106 (prefix) left empty.
    expect(only(segments, 'NM1')).toEqual({
      name: 'NM1',
      '1': 'IL',
      '2': '1',
      '3': 'Nunez',
      '4': 'Jose',
      '5': 'Angel',
      '6': '',
      '7': 'Jr',
      '8': '34',
      '9': '123456789',
    });
    expect(only(segments, 'N3')).toEqual({ name: 'N3', '1': '1 Main St', '2': 'Apt 2' });
    expect(only(segments, 'N4')).toEqual({ name: 'N4', '1': 'Springfield', '2': 'IL', '3': '62701' });
    expect(only(segments, 'DMG')).toEqual({ name: 'DMG', '1': 'D8', '2': '19800229', '3': 'M' });
    const hd = segments.filter((segment) => segment.name === 'HD');
    expect(hd).toEqual([
      { name: 'HD', '1': '021', '2': '', '3': 'HLT', '4': 'PPO 500', '5': 'FAM' },
      { name: 'HD', '1': '021', '2': '', '3': 'DEN', '4': '', '5': 'FAM' },
    ]);
    expect(segments.filter((segment) => segment.name === 'DTP' && segment['1'] === '348').map((segment) => segment['3'])).toEqual(['20270101', '20270101']);
    expect(only(segments, 'DTP', '349')['3']).toBe('20271231');
  });

  it("when a subscriber has dependents, then each dependent's 2000 loop follows the subscriber's with INS01 N and the subscriber's REF*0F", async () => {
    const segments = await parsed(
      await write834ToString(ENVELOPE, [subscriber({ dependents: [dependent('spouse'), dependent('step_child')] }), subscriber({ subscriberId: 'E2002' })]),
    );
    const ins = segments.filter((segment) => segment.name === 'INS').map((segment) => [segment['1'], segment['2']]);
    const subscriberIds = segments.filter((segment) => segment.name === 'REF' && segment['1'] === '0F').map((segment) => segment['2']);

    expect(ins).toEqual([
      ['Y', '18'],
      ['N', '01'],
      ['N', '17'],
      ['Y', '18'],
    ]);
    expect(subscriberIds).toEqual(['E1001', 'E1001', 'E1001', 'E2002']);
    // A dependent's INS has no INS08 (employment status is the subscriber's).
    expect(segments.filter((segment) => segment.name === 'INS' && segment['1'] === 'N').every((segment) => segment['8'] === undefined)).toBe(true);
  });

  it.each(DEPENDENT_RELATIONSHIPS.map((relationship) => [relationship, INDIVIDUAL_RELATIONSHIP_CODES[relationship]] as const))(
    'when a dependent is a %s, then INS02 is %s',
    async (relationship, code) => {
      const segments = await parsed(await write834ToString(ENVELOPE, [subscriber({ dependents: [dependent(relationship)] })]));
      expect(only(segments, 'INS', 'N')['2']).toBe(code);
    },
  );

  it('when a member has no SSN, address, middle name or suffix, then NM108/NM109, N3/N4 and their elements are left out', async () => {
    const segments = await parsed(
      await write834ToString(ENVELOPE, [subscriber({ ssn: null, address: null, name: { last: 'Smith', first: 'Al' }, sex: null })]),
    );
    expect(only(segments, 'NM1')).toEqual({ name: 'NM1', '1': 'IL', '2': '1', '3': 'Smith', '4': 'Al' });
    expect(segments.some((segment) => segment.name === 'N3' || segment.name === 'N4')).toBe(false);
    expect(only(segments, 'DMG')['3']).toBe('U');
  });

  it('when an address is outside the US, then N404 carries its country; a US one has none', async () => {
    const abroad = await parsed(
      await write834ToString(ENVELOPE, [subscriber({ address: { line1: '1 King St W', city: 'Toronto', state: 'ON', postalCode: 'M5H 1A1', country: 'CA' } })]),
    );
    const home = await parsed(
      await write834ToString(ENVELOPE, [subscriber({ address: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' } })]),
    );
    expect(only(abroad, 'N4')).toEqual({ name: 'N4', '1': 'Toronto', '2': 'ON', '3': 'M5H 1A1', '4': 'CA' });
    expect(only(home, 'N4')['4']).toBeUndefined();
  });

  it('when a coverage is terminated, then HD01 is 024 and DTP*349 gives the last day', async () => {
    const segments = await parsed(
      await write834ToString(ENVELOPE, [
        subscriber({
          maintenanceType: 'change',
          maintenanceReason: 'termination_of_employment',
          employmentStatus: 'terminated',
          employmentEnd: '2026-11-30',
          coverages: [{ maintenanceType: 'cancellation_or_termination', line: 'vision', tier: 'member', benefitBegin: '2026-01-01', benefitEnd: '2026-11-30' }],
        }),
      ]),
    );
    expect(only(segments, 'INS')).toMatchObject({ '3': '001', '4': '08', '8': 'TE' });
    expect(only(segments, 'DTP', '337')['3']).toBe('20261130');
    expect(only(segments, 'HD')).toEqual({ name: 'HD', '1': '024', '2': '', '3': 'VIS', '4': '', '5': 'EMP' });
    expect(only(segments, 'DTP', '349')['3']).toBe('20261130');
  });

  it('when a line has no 005010X220A1 code, then it is refused unless the companion guide gives one', async () => {
    const life = { maintenanceType: 'addition', line: 'life', benefitBegin: '2027-01-01' } as const;
    const error = await refusal(() => write834ToString(ENVELOPE, [subscriber({ coverages: [life] })]));
    expect(error.element).toBe('HD03');

    const segments = await parsed(
      await write834ToString(ENVELOPE, [subscriber({ coverages: [{ ...life, insuranceLineCode: 'LIF', coverageLevelCode: 'E1D' }] })]),
    );
    expect(only(segments, 'HD')).toMatchObject({ '3': 'LIF', '5': 'E1D' });
    expect((await refusal(() => write834ToString(ENVELOPE, [subscriber({ coverages: [{ ...life, insuranceLineCode: 'LI*' }] })]))).element).toBe('HD03');
    expect(
      (await refusal(() => write834ToString(ENVELOPE, [subscriber({ coverages: [{ ...life, insuranceLineCode: 'LIF', coverageLevelCode: 'e1d' }] })]))).element,
    ).toBe('HD05');
  });
});

describe('addressLineElements (005010X220A1 2100A N3: N301, N302 AN 1/55)', () => {
  const long = '4417 North Independence Boulevard Southwest Building 7 Apartment 12B';
  it.each<[string, [string, string | null], [string, string | undefined]]>([
    ['a first line that fits, no second line', ['100 Market Street', null], ['100 Market Street', undefined]],
    ['a first line that fits and a second line', ['100 Market Street', 'Apt 4'], ['100 Market Street', 'Apt 4']],
    ['a first line of exactly 55', ['A'.repeat(55), 'Apt 4'], ['A'.repeat(55), 'Apt 4']],
    [
      'a first line past 55: the rest goes on in N302, cut at a space',
      [long, null],
      ['4417 North Independence Boulevard Southwest Building 7', 'Apartment 12B'],
    ],
    [
      'a first line past 55 and a second line: the rest, then the second line',
      [long, 'Rear'],
      ['4417 North Independence Boulevard Southwest Building 7', 'Apartment 12B Rear'],
    ],
    ['a first line past 55 with no space to cut at', ['B'.repeat(60), null], ['B'.repeat(55), 'B'.repeat(5)]],
    ['more than both elements hold: only the end of N302 is cut', ['C'.repeat(60), 'D'.repeat(60)], ['C'.repeat(55), `CCCCC ${'D'.repeat(49)}`]],
    ['accents folded in both', ['1 Rue de l’Église', 'Bâtiment B'], ["1 Rue de l'Eglise", 'Batiment B']],
  ])('when %s, then N301 and N302 are as expected', (_label, [line1, line2], expected) => {
    expect(addressLineElements(line1, line2)).toEqual(expected);
  });

  it('when a line holds a delimiter, then it is refused naming the element', () => {
    expect(() => addressLineElements('1 Main St', 'Apt ~2')).toThrow(/N302/);
    expect(() => addressLineElements('1 Main St: Apt 2', null)).toThrow(/N301/);
  });
});

describe('sanitizeElement', () => {
  it.each<[string, Parameters<typeof sanitizeElement>, string]>([
    ['accents folded', ['NM103', 'Müller-Lüdenscheidt', 'text'], 'Muller-Ludenscheidt'],
    ['spaces trimmed and runs made one', ['NM104', '  Mary   Ann\t', 'text'], 'Mary Ann'],
    ['a line break in an address made a space', ['N301', '1 Main St\r\nApt 2', 'text'], '1 Main St Apt 2'],
    ['a last name cut to 60', ['NM103', 'L'.repeat(70), 'text'], 'L'.repeat(60)],
    ['a first name cut to 35', ['NM104', 'F'.repeat(40), 'text'], 'F'.repeat(35)],
    ['a middle name cut to 25', ['NM105', 'M'.repeat(30), 'text'], 'M'.repeat(25)],
    ['an address line cut to 55', ['N301', 'A'.repeat(80), 'text'], 'A'.repeat(55)],
    ['a city cut to 30', ['N401', 'C'.repeat(31), 'text'], 'C'.repeat(30)],
    ['a cut that ends in a space trimmed', ['N401', `${'C'.repeat(29)} D`, 'text'], 'C'.repeat(29)],
    ['an identifier trimmed', ['REF02', '  E1001 ', 'identifier'], 'E1001'],
    ['an identifier of the maximum length kept', ['REF02', 'X'.repeat(50), 'identifier'], 'X'.repeat(50)],
    ['extended characters kept', ['N301', "#5 O'Brien & Sons (Bldg. C) @ [East] 50% off", 'text'], "#5 O'Brien & Sons (Bldg. C) @ [East] 50% off"],
  ])('when %s, then the value written is as expected', (_case, args, expected) => {
    expect(sanitizeElement(...args)).toBe(expected);
  });

  it.each<[string, Parameters<typeof sanitizeElement>]>([
    ['an element separator', ['NM103', 'Smith*Jones', 'text']],
    ['a segment terminator', ['NM103', 'Smith~', 'text']],
    ['a component separator', ['N301', '1 Main St: Apt 2', 'text']],
    ['a repetition separator', ['NM104', 'Jo^n', 'text']],
    ['a full-width asterisk (folds to *)', ['NM103', 'Smith＊', 'text']],
    ['a character with no ASCII form', ['NM103', 'Ωmega', 'text']],
    ['an emoji', ['NM104', 'Jo🙂', 'text']],
    ['a control character in an identifier', ['REF02', 'E10\n01', 'identifier']],
    ['a NUL', ['REF02', 'E\u000001', 'identifier']],
    ['an identifier longer than its maximum', ['REF02', 'X'.repeat(51), 'identifier']],
    ['a blank required value', ['NM103', '   ', 'text']],
    ['a city shorter than 2', ['N401', 'X', 'text']],
    ['a state of three letters', ['N402', 'ILL', 'identifier']],
    ['not a string', ['NM103', 42 as unknown as string, 'text']],
  ])('when the value holds %s, then it is refused with the element named', (_case, args) => {
    expect(() => sanitizeElement(...args)).toThrow(X12ValueError);
    try {
      sanitizeElement(...args);
    } catch (error) {
      expect((error as X12ValueError).element).toBe(args[0]);
    }
  });

  // The 005010 data element dictionary's minimum and maximum of each free-form element written (005010X220A1).
  const DICTIONARY_LENGTHS: Record<string, [number, number]> = {
    ISA06: [1, 15],
    ISA08: [1, 15],
    GS02: [2, 15],
    GS03: [2, 15],
    BGN02: [1, 50],
    REF02: [1, 50],
    N102: [1, 60],
    N104: [2, 80],
    NM103: [1, 60],
    NM104: [1, 35],
    NM105: [1, 25],
    NM107: [1, 10],
    N301: [1, 55],
    N302: [1, 55],
    N401: [2, 30],
    N402: [2, 2],
    N403: [3, 15],
    N404: [2, 3],
    HD04: [1, 50],
  };

  it('when the lengths are compared with the 005010 dictionary, then every element written has its minimum and maximum', () => {
    expect(ELEMENT_LENGTHS).toEqual(DICTIONARY_LENGTHS);
  });

  it.each(Object.entries(ELEMENT_LENGTHS))(
    'when %s (%j) is at its maximum it is kept, one longer is refused as an identifier and cut as text; at its minimum it is kept, one shorter refused',
    (name, [min, max]) => {
      const element = name as keyof typeof ELEMENT_LENGTHS;
      const of = (length: number) => 'X'.repeat(length);
      for (const kind of ['identifier', 'text'] as const) {
        expect(sanitizeElement(element, of(max), kind)).toBe(of(max));
        expect(sanitizeElement(element, of(min), kind)).toBe(of(min));
        expect(() => sanitizeElement(element, of(min - 1), kind)).toThrow(expect.objectContaining({ element }) as Error);
      }
      expect(() => sanitizeElement(element, of(max + 1), 'identifier')).toThrow(
        expect.objectContaining({ element, reason: `is longer than ${max} characters` }) as Error,
      );
      expect(sanitizeElement(element, of(max + 1), 'text')).toBe(of(max));
    },
  );

  it('when a member name holds * or ~, then the file is refused and nothing of the name is written', async () => {
    for (const last of ['Smith*Jones', 'Smith~NM1*IL*1*EVIL']) {
      const chunks: string[] = [];
      const error = await refusal(async () => {
        for await (const chunk of write834(ENVELOPE, [subscriber({ name: { last, first: 'Al' } })])) chunks.push(chunk);
      });
      expect(error.element).toBe('NM103');
      expect(error.subscriberIndex).toBe(0);
      expect(error.message).not.toContain('Smith');
      expect(chunks.join('')).not.toContain('Smith');
    }
  });

  it('when the second subscriber holds a bad value, then the error names its position', async () => {
    const error = await refusal(() =>
      write834ToString(ENVELOPE, [subscriber(), subscriber({ dependents: [dependent('child', { name: { last: 'Bad~Name' } })] })]),
    );
    expect(error).toMatchObject({ element: 'NM103', subscriberIndex: 1 });
  });
});

describe('dates, SSNs, FEINs and control numbers', () => {
  it.each([
    ['2024-02-29', '20240229'],
    ['0001-01-01', '00010101'],
    ['9999-12-31', '99991231'],
  ])('when the date is %s, then it is written %s', (date, expected) => {
    expect(x12Date('DMG02', date)).toBe(expected);
  });

  it.each(['2026-02-29', '2026-13-01', '2026-04-31', '20260101', '2026-1-01', '0000-01-01', '+010000-01-01', '2026-01-01T00:00:00Z', ''])(
    'when the date is %j, then it is refused',
    (date) => {
      expect(() => x12Date('DMG02', date)).toThrow(X12ValueError);
    },
  );

  it.each(['12345678', '1234567890', '123-45-6789', '000123456', '666123456', '900123456', '999123456', '123001234', '123450000', ' 123456789'])(
    'when the SSN is %j, then it is refused without being repeated',
    (ssn) => {
      expect(() => x12SocialSecurityNumber(ssn)).toThrow(X12ValueError);
      try {
        x12SocialSecurityNumber(ssn);
      } catch (error) {
        expect((error as Error).message).not.toContain(ssn.trim() === '' ? '\u0000' : ssn.trim());
      }
    },
  );

  it.each(['001010001', '665123456', '667123456', '899123456', '123011234', '123450001'])(
    'when the SSN is %j (next to a number the SSA never issues), then it is written',
    (ssn) => {
      expect(x12SocialSecurityNumber(ssn)).toBe(ssn);
    },
  );

  it('when the sponsor FEIN is not nine digits, then write834 throws at once', () => {
    for (const fein of ['12-3456789', '12345678', 'ABCDEFGHI']) {
      expect(() => write834({ ...ENVELOPE, sponsor: { name: 'Acme', fein } }, [])).toThrow(X12ValueError);
    }
  });

  it.each([
    ['interchangeControlNumber', 0, 'ISA13'],
    ['interchangeControlNumber', 1_000_000_000, 'ISA13'],
    ['groupControlNumber', 1.5, 'GS06'],
    ['transactionSetControlNumber', -1, 'ST02'],
    ['transactionSetControlNumber', Number.NaN, 'ST02'],
  ] as const)('when %s is %s, then %s is refused', (field, value, element) => {
    expect(() => write834({ ...ENVELOPE, [field]: value }, [])).toThrow(expect.objectContaining({ element }) as Error);
  });

  it.each([1, 999_999_999])('when every control number is %i (the first and last of I12, 28 and 329), then the file is written with it', async (value) => {
    const text = await write834ToString({ ...ENVELOPE, interchangeControlNumber: value, groupControlNumber: value, transactionSetControlNumber: value }, [
      subscriber(),
    ]);
    const segments = text.split('~').map((segment) => segment.split('*'));
    const find = (name: string) => segments.find((segment) => segment[0] === name)!;
    expect(find('ISA')[13]).toBe(String(value).padStart(9, '0'));
    expect(find('IEA')[2]).toBe(String(value).padStart(9, '0'));
    expect([find('GS')[6], find('GE')[2]]).toEqual([String(value), String(value)]);
    expect(Number(find('ST')[2])).toBe(value);
    expect(Number(find('SE')[2])).toBe(value);
  });

  it('when the envelope is otherwise wrong, then write834 names the element', () => {
    const cases: [Partial<Envelope834>, string][] = [
      [{ sender: { qualifier: 'ZZ', id: 'X'.repeat(16) } }, 'ISA06'],
      [{ receiver: { qualifier: 'XX' as 'ZZ', id: 'CARRIER' } }, 'ISA07'],
      [{ createdAt: new Date('not a date') }, 'ISA09'],
      [{ applicationSenderCode: 'A' }, 'GS02'],
      [{ referenceId: 'REF*1' }, 'BGN02'],
      [{ action: 'delete' as 'change' }, 'BGN08'],
      [{ fileEffectiveDate: '2027-02-30' }, 'DTP03'],
      [{ payer: { name: 'Carrier', idQualifier: 'FI', id: 'CARRIER' } }, 'N104'],
      [{ payer: { name: 'Carrier~', idQualifier: 'XV', id: '12345' } }, 'N102'],
    ];
    for (const [change, element] of cases) {
      expect(() => write834({ ...ENVELOPE, ...change }, []), element).toThrow(expect.objectContaining({ element }) as Error);
    }
  });
});

describe('write834: streaming', () => {
  it('when 50,000 subscribers stream in, then the file streams out chunk by chunk and x12-parser counts them all', async () => {
    const SUBSCRIBERS = 50_000;
    async function* members(): AsyncGenerator<Subscriber834> {
      for (let index = 0; index < SUBSCRIBERS; index += 1) {
        yield subscriber({ subscriberId: `E${index}`, dependents: index % 10 === 0 ? [dependent('child')] : [] });
      }
    }
    let chunks = 0;
    let largestChunk = 0;
    async function* counted(source: AsyncIterable<string>): AsyncGenerator<string> {
      for await (const chunk of source) {
        chunks += 1;
        largestChunk = Math.max(largestChunk, chunk.length);
        yield chunk;
      }
    }
    const counts = { segments: 0, transactionSegments: 0, subscribers: 0, dependents: 0 };
    let inTransaction = false;
    const trailers = new Map<string, FormattedSegment>();
    await pipeline(Readable.from(counted(write834(ENVELOPE, members()))), new X12parser(), async (stream: AsyncIterable<FormattedSegment>) => {
      for await (const segment of stream) {
        counts.segments += 1;
        if (segment.name === 'ST') inTransaction = true;
        if (inTransaction) counts.transactionSegments += 1;
        if (segment.name === 'SE') inTransaction = false;
        if (segment.name === 'INS') counts[segment['1'] === 'Y' ? 'subscribers' : 'dependents'] += 1;
        if (segment.name === 'SE' || segment.name === 'GE' || segment.name === 'IEA') trailers.set(segment.name, segment);
      }
    });

    expect(counts.subscribers).toBe(SUBSCRIBERS);
    expect(counts.dependents).toBe(SUBSCRIBERS / 10);
    expect(trailers.get('SE')).toEqual({ name: 'SE', '1': String(counts.transactionSegments), '2': '0012' });
    expect(trailers.get('GE')?.['1']).toBe('1');
    expect(trailers.get('IEA')?.['1']).toBe('1');
    expect(chunks).toBeGreaterThan(100);
    // Bounded: one chunk is about 64 KiB plus one family, never the file.
    expect(largestChunk).toBeLessThan(70 * 1024);
  }, 120_000);

  it('when members come from a plain iterable, then the result is the same as from an async one', async () => {
    const members = [subscriber(), subscriber({ subscriberId: 'E2' })];
    async function* asynchronous(): AsyncGenerator<Subscriber834> {
      yield* members;
    }
    expect(await write834ToString(ENVELOPE, asynchronous())).toBe(await write834ToString(ENVELOPE, members));
  });
});
