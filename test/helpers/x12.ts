/**
 * The third-party X12 check of every 834 the tests build (005010X220A1): parsed with x12-parser and held
 * against the guide's rules, written here from the guide (not imported from src/modules/edi/x12-codes.ts,
 * which they check). Used by every test file that builds EDI files.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { expect } from 'vitest';
import { X12parser, type FormattedSegment } from 'x12-parser';

// ------------------------------------------------------------------------------------------------------------
// The guide's rules, written here from 005010X220A1 (not imported from x12-codes.ts, which they check).

/** Code lists of the elements checked, by data element: a code outside them is a 999 IK403 7 (invalid code value). */
const GUIDE_CODES = {
  // INS02 (1069) Individual Relationship Code, as 005010X220A1 lists it.
  INS02: '01 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 23 24 25 26 31 38 53 60 D2 G8 G9'.split(' '),
  // INS03 (875) Maintenance Type Code: change, addition, cancellation or termination, reinstatement, audit or compare.
  INS03: ['001', '021', '024', '025', '030'],
  // INS04 (1203) Maintenance Reason Code, as 005010X220A1 lists it.
  INS04:
    '01 02 03 04 05 06 07 08 09 10 11 14 15 16 17 18 20 21 22 25 26 27 28 29 31 32 33 37 38 39 40 41 43 59 AA AB AC AD AE AF AG AH AI AJ AL EC XN XT'.split(
      ' ',
    ),
  // INS05 (1216) Benefit Status Code: active, COBRA, surviving insured, TEFRA.
  INS05: ['A', 'C', 'S', 'T'],
  // INS08 (584) Employment Status Code.
  INS08: ['AC', 'AO', 'AU', 'FT', 'L1', 'PT', 'RT', 'TE'],
  // HD01 (875) Maintenance Type Code of the 2300 loop.
  HD01: ['001', '002', '021', '024', '025', '026', '030', '032'],
  // HD03 (1205) Insurance Line Code.
  HD03: ['AG', 'AH', 'AJ', 'AK', 'DCP', 'DEN', 'EPO', 'FAC', 'HE', 'HLT', 'HMO', 'LTC', 'LTD', 'MM', 'MOD', 'PDG', 'POS', 'PPO', 'PRA', 'STD', 'UR', 'VIS'],
  // HD05 (1207) Coverage Level Code.
  HD05: ['CHD', 'DEP', 'E1D', 'E2D', 'E3D', 'E5D', 'E6D', 'E7D', 'E8D', 'E9D', 'ECH', 'EMP', 'ESP', 'FAM', 'IND', 'SPC', 'SPO', 'TWO'],
  // DMG03 (1068) Gender Code.
  DMG03: ['F', 'M', 'U'],
} as const satisfies Record<string, readonly string[]>;

/**
 * The segments this writer may send, in the guide's order: the header (ISA, GS, ST, BGN, REF*38 required,
 * the 1000 dates situational, N1*P5 and N1*IN), then each member's 2000 loop (INS, REF*0F, REF*1L, member
 * dates), 2100A (NM1*IL, or NM1*74 Corrected Insured; N3/N4 together, DMG), 2100B (NM1*70 Prior Incorrect
 * Insured) and 2300 loops (HD, DTP*348, DTP*349), then SE, GE, IEA.
 */
const HEADER = String.raw`ISA GS ST BGN REF\*38 (DTP\*(007|303) )*N1\*P5 N1\*IN `;
const MEMBER_LOOP = String.raw`INS REF\*0F (REF\*1L )?(DTP\*(303|336|337|356|357) )*NM1\*(IL|74) (N3 N4 )?DMG (NM1\*70 )?(HD DTP\*348 (DTP\*349 )?)*`;
const GUIDE_ORDER = new RegExp(`^${HEADER}(${MEMBER_LOOP})*SE GE IEA$`);

/** A segment as the order above names it: REF, DTP and N1 by their qualifier, NM1 by its entity code. */
function orderToken(segment: FormattedSegment): string {
  return ['REF', 'DTP', 'N1', 'NM1'].includes(segment.name) ? `${segment.name}*${segment['1']}` : segment.name;
}

/** The segments of X12 text as the third-party x12-parser reads them. */
export async function parsed(content: string): Promise<FormattedSegment[]> {
  const segments: FormattedSegment[] = [];
  await pipeline(Readable.from([content]), new X12parser(), async (stream: AsyncIterable<FormattedSegment>) => {
    for await (const segment of stream) segments.push(segment);
  });
  return segments;
}

export function one(segments: readonly FormattedSegment[], name: string): FormattedSegment {
  const found = segments.filter((segment) => segment.name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

export interface EdiFileRecord {
  id: string;
  kind: 'change' | 'full';
  action: 'change' | 'replace' | 'verify';
  as_of: string;
  interchange_control_number: number;
  group_control_number: number;
  transaction_set_control_number: string;
  usage_indicator: string;
  member_count: number;
  segment_count: number;
  byte_count: number;
  benefit_changes: string[];
  left_out: unknown[];
}

/**
 * Checks one built file against 005010X220A1 and against its record: the envelope and the member loops in the
 * guide's order; SE01 counts ST through SE, SE02 = ST02, GE01 = 1, GE02 = GS06, IEA01 = 1, IEA02 = ISA13; the ISA
 * is 106 characters; ISA13/GS06 are the record's control numbers and its segment and byte counts are the
 * content's; each dependent (INS01 N) follows its subscriber (INS01 Y) with the subscriber's REF*0F; every
 * coded element holds a code of the guide's list (HD03 also the companion guide's own codes, when given).
 */
export async function expectGuideConformant(record: EdiFileRecord, content: string, options: { companionGuideLineCodes?: readonly string[] } = {}) {
  // X12.5: the interchange header is fixed-length, 106 characters with its terminator (the delimiters are read from it).
  expect(content.indexOf('~') + 1, 'ISA length').toBe(106);
  expect(Buffer.byteLength(content), 'byte_count').toBe(record.byte_count);
  const segments = await parsed(content);
  expect(segments.length, 'segment_count').toBe(record.segment_count);
  const order = segments.map(orderToken).join(' ');
  expect(order, 'segment order').toMatch(GUIDE_ORDER);

  const isa = one(segments, 'ISA');
  const gs = one(segments, 'GS');
  const st = one(segments, 'ST');
  const bgn = one(segments, 'BGN');
  expect(isa).toMatchObject({
    '11': '^',
    '12': '00501',
    '13': String(record.interchange_control_number).padStart(9, '0'),
    '15': record.usage_indicator,
    '16': ':',
  });
  expect(gs).toMatchObject({ '1': 'BE', '6': String(record.group_control_number), '7': 'X', '8': '005010X220A1' });
  expect(st).toMatchObject({ '1': '834', '2': record.transaction_set_control_number, '3': '005010X220A1' });
  // BGN02 is the file's id; BGN08 2 change, RX replace, 4 verify.
  expect(bgn).toMatchObject({ '1': '00', '2': record.id, '5': 'UT', '8': { change: '2', replace: 'RX', verify: '4' }[record.action] });
  if (record.kind === 'full')
    expect(segments.find((segment) => segment.name === 'DTP' && segment['1'] === '007')?.['3']).toBe(record.as_of.replaceAll('-', ''));

  const stAt = segments.indexOf(st);
  const se = one(segments, 'SE');
  expect(se).toEqual({ name: 'SE', '1': String(segments.indexOf(se) - stAt + 1), '2': st['2'] });
  expect(one(segments, 'GE')).toEqual({ name: 'GE', '1': '1', '2': gs['6'] });
  expect(one(segments, 'IEA')).toEqual({ name: 'IEA', '1': '1', '2': isa['13'] });

  let subscriberId: string | undefined;
  let subscribers = 0;
  let maintenanceReason: string | undefined;
  let correctionOf: string | undefined;
  for (const [index, segment] of segments.entries()) {
    const following = segments[index + 1];
    if (segment.name === 'INS') {
      expect(GUIDE_CODES.INS03, 'INS03').toContain(segment['3']);
      if ((segment['4'] ?? '') !== '') expect(GUIDE_CODES.INS04, 'INS04').toContain(segment['4']);
      maintenanceReason = segment['4'];
      expect(GUIDE_CODES.INS05, 'INS05').toContain(segment['5']);
      expect(following?.name === 'REF' && following['1'] === '0F', 'REF*0F after INS').toBe(true);
      if (segment['1'] === 'Y') {
        // A subscriber's name correction (INS04 25) is a loop of its own before their other loop: one member.
        if (!(correctionOf === following?.['2'])) subscribers += 1;
        correctionOf = segment['4'] === '25' ? following?.['2'] : undefined;
        subscriberId = following?.['2'];
        expect(segment['2'], 'INS02 of a subscriber').toBe('18');
        expect(GUIDE_CODES.INS08, 'INS08').toContain(segment['8']);
      } else {
        correctionOf = undefined;
        expect(segment['1'], 'INS01').toBe('N');
        expect(subscriberId, 'a dependent follows a subscriber').toBeDefined();
        expect(following?.['2'], "a dependent's REF*0F is its subscriber's").toBe(subscriberId);
        expect(GUIDE_CODES.INS02, 'INS02').toContain(segment['2']);
        expect(segment['2'], 'INS02 of a dependent').not.toBe('18');
      }
    }
    // 2100A NM101 74 (Corrected Insured) and 2100B (NM1*70, the prior name) go together, on a loop with INS04 25.
    if (segment.name === 'NM1' && (segment['1'] === '74' || segment['1'] === '70')) expect(maintenanceReason, 'INS04 of a corrected name').toBe('25');
    if (segment.name === 'NM1' && segment['1'] === '74') {
      const prior = segments.slice(index + 1).find((next) => next.name === 'NM1' || next.name === 'INS' || next.name === 'HD');
      expect(prior?.name === 'NM1' && prior['1'] === '70', 'NM1*74 is followed by its 2100B (NM1*70)').toBe(true);
    }
    // A benefit never ends before it begins (cancelling coverage that never started ends it on its first day).
    if (segment.name === 'DTP' && segment['1'] === '349') {
      const begin = segments[index - 1];
      expect(begin?.name === 'DTP' && begin['1'] === '348', 'DTP*349 follows its DTP*348').toBe(true);
      expect(segment['3']! >= begin!['3']!, 'DTP*349 is not before DTP*348').toBe(true);
    }
    if (segment.name === 'HD') {
      expect(GUIDE_CODES.HD01, 'HD01').toContain(segment['1']);
      expect([...GUIDE_CODES.HD03, ...(options.companionGuideLineCodes ?? [])], 'HD03').toContain(segment['3']);
      expect(GUIDE_CODES.HD05, 'HD05').toContain(segment['5']);
    }
    if (segment.name === 'DMG') {
      expect(segment['1']).toBe('D8');
      expect(GUIDE_CODES.DMG03, 'DMG03').toContain(segment['3']);
    }
  }
  expect(subscribers, 'member_count').toBe(record.member_count);
  // A full file is the audit of everyone: every member loop and every coverage loop is 030 (audit or compare).
  if (record.kind === 'full') {
    expect(new Set(segments.filter((segment) => segment.name === 'INS').map((segment) => segment['3']))).toEqual(new Set(['030']));
    expect(new Set(segments.filter((segment) => segment.name === 'HD').map((segment) => segment['1']))).toEqual(new Set(['030']));
  }
  return segments;
}
