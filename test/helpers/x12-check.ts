/**
 * The third-party X12 check of every 834 the tests and the plan-year simulation build (005010X220A1): parsed
 * with x12-parser and held against the guide's rules, written here from the guide (not imported from
 * src/modules/edi/x12-codes.ts, which they check). Returns the problems it finds as text, so that it runs
 * without vitest (the simulation's invariants, the bench); test/helpers/x12.ts is the tests' wrapper.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isDeepStrictEqual } from 'node:util';
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

/** What the check compares a file's content with: its record (GET /edi_files/{id}, or the edi_files row). */
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
}

export interface X12CheckOptions {
  /** HD03 codes the group's companion guide adds to the guide's list. */
  companionGuideLineCodes?: readonly string[];
}

/** Collects problems as text: `label: expected ..., got ...`. */
class Problems {
  readonly list: string[] = [];
  equal(label: string, actual: unknown, expected: unknown) {
    if (!isDeepStrictEqual(actual, expected)) this.list.push(`${label}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
  fields(label: string, segment: FormattedSegment | undefined, expected: Record<string, string>) {
    for (const [element, value] of Object.entries(expected)) this.equal(`${label}${element.padStart(2, '0')}`, segment?.[element], value);
  }
  within(label: string, list: readonly string[], value: string | undefined) {
    if (value === undefined || !list.includes(value)) this.list.push(`${label}: ${JSON.stringify(value)} is not a code of the guide's list`);
  }
  holds(label: string, condition: boolean) {
    if (!condition) this.list.push(label);
  }
}

/** The one segment named `name`, or a problem. */
function only(problems: Problems, segments: readonly FormattedSegment[], name: string): FormattedSegment | undefined {
  const found = segments.filter((segment) => segment.name === name);
  problems.equal(`${name} count`, found.length, 1);
  return found[0];
}

/**
 * Checks one built file against 005010X220A1 and against its record: the envelope and the member loops in the
 * guide's order; SE01 counts ST through SE, SE02 = ST02, GE01 = 1, GE02 = GS06, IEA01 = 1, IEA02 = ISA13; the ISA
 * is 106 characters; ISA13/GS06 are the record's control numbers and its segment and byte counts are the
 * content's; each dependent (INS01 N) follows its subscriber (INS01 Y) with the subscriber's REF*0F; every
 * coded element holds a code of the guide's list (HD03 also the companion guide's own codes, when given).
 * Returns the segments as parsed and every problem found (none: conformant). Content the parser cannot read
 * is one problem.
 */
export async function checkX12(
  record: EdiFileRecord,
  content: string,
  options: X12CheckOptions = {},
): Promise<{ segments: FormattedSegment[]; problems: string[] }> {
  const problems = new Problems();
  // X12.5: the interchange header is fixed-length, 106 characters with its terminator (the delimiters are read from it).
  problems.equal('ISA length', content.indexOf('~') + 1, 106);
  problems.equal('byte_count', Buffer.byteLength(content), record.byte_count);
  let segments: FormattedSegment[];
  try {
    segments = await parsed(content);
  } catch (error) {
    problems.holds(`x12-parser cannot read it: ${error instanceof Error ? error.message : String(error)}`, false);
    return { segments: [], problems: problems.list };
  }
  problems.equal('segment_count', segments.length, record.segment_count);
  const order = segments.map(orderToken).join(' ');
  problems.holds(`segment order is not the guide's: ${order}`, GUIDE_ORDER.test(order));

  const isa = only(problems, segments, 'ISA');
  const gs = only(problems, segments, 'GS');
  const st = only(problems, segments, 'ST');
  const bgn = only(problems, segments, 'BGN');
  problems.fields('ISA', isa, {
    '11': '^',
    '12': '00501',
    '13': String(record.interchange_control_number).padStart(9, '0'),
    '15': record.usage_indicator,
    '16': ':',
  });
  problems.fields('GS', gs, { '1': 'BE', '6': String(record.group_control_number), '7': 'X', '8': '005010X220A1' });
  problems.fields('ST', st, { '1': '834', '2': record.transaction_set_control_number, '3': '005010X220A1' });
  // BGN02 is the file's id; BGN08 2 change, RX replace, 4 verify.
  problems.fields('BGN', bgn, { '1': '00', '2': record.id, '5': 'UT', '8': { change: '2', replace: 'RX', verify: '4' }[record.action] });
  if (record.kind === 'full')
    problems.equal('DTP*007', segments.find((segment) => segment.name === 'DTP' && segment['1'] === '007')?.['3'], record.as_of.replaceAll('-', ''));

  const se = only(problems, segments, 'SE');
  if (st && se) problems.equal('SE', se, { name: 'SE', '1': String(segments.indexOf(se) - segments.indexOf(st) + 1), '2': st['2'] });
  problems.equal('GE', only(problems, segments, 'GE'), { name: 'GE', '1': '1', '2': gs?.['6'] });
  problems.equal('IEA', only(problems, segments, 'IEA'), { name: 'IEA', '1': '1', '2': isa?.['13'] });

  const subscribers = checkLoops(problems, segments, options);
  problems.equal('member_count', subscribers, record.member_count);
  // A full file is the audit of everyone: every member loop and every coverage loop is 030 (audit or compare).
  if (record.kind === 'full') {
    problems.equal('INS03 of a full file', [...new Set(segments.filter((segment) => segment.name === 'INS').map((segment) => segment['3']))], ['030']);
    problems.equal('HD01 of a full file', [...new Set(segments.filter((segment) => segment.name === 'HD').map((segment) => segment['1']))], ['030']);
  }
  return { segments, problems: problems.list };
}

/** The member loops' rules, segment by segment; returns how many subscribers (members) the file carries. */
function checkLoops(problems: Problems, segments: readonly FormattedSegment[], options: X12CheckOptions): number {
  let subscriberId: string | undefined;
  let subscribers = 0;
  let maintenanceReason: string | undefined;
  let correctionOf: string | undefined;
  for (const [index, segment] of segments.entries()) {
    const following = segments[index + 1];
    if (segment.name === 'INS') {
      problems.within('INS03', GUIDE_CODES.INS03, segment['3']);
      if ((segment['4'] ?? '') !== '') problems.within('INS04', GUIDE_CODES.INS04, segment['4']);
      maintenanceReason = segment['4'];
      problems.within('INS05', GUIDE_CODES.INS05, segment['5']);
      problems.holds('REF*0F after INS', following?.name === 'REF' && following['1'] === '0F');
      if (segment['1'] === 'Y') {
        // A subscriber's name correction (INS04 25) is a loop of its own before their other loop: one member.
        if (!(correctionOf === following?.['2'])) subscribers += 1;
        correctionOf = segment['4'] === '25' ? following?.['2'] : undefined;
        subscriberId = following?.['2'];
        problems.equal('INS02 of a subscriber', segment['2'], '18');
        problems.within('INS08', GUIDE_CODES.INS08, segment['8']);
      } else {
        correctionOf = undefined;
        problems.equal('INS01', segment['1'], 'N');
        problems.holds('a dependent follows a subscriber', subscriberId !== undefined);
        // Compared without printing either value: a subscriber id may be an SSN (companion guide subscriber_id_source).
        problems.holds("a dependent's REF*0F is its subscriber's", following?.['2'] === subscriberId);
        problems.within('INS02', GUIDE_CODES.INS02, segment['2']);
        problems.holds('INS02 of a dependent is not 18', segment['2'] !== '18');
      }
    }
    // 2100A NM101 74 (Corrected Insured) and 2100B (NM1*70, the prior name) go together, on a loop with INS04 25.
    if (segment.name === 'NM1' && (segment['1'] === '74' || segment['1'] === '70')) problems.equal('INS04 of a corrected name', maintenanceReason, '25');
    if (segment.name === 'NM1' && segment['1'] === '74') {
      const prior = segments.slice(index + 1).find((next) => next.name === 'NM1' || next.name === 'INS' || next.name === 'HD');
      problems.holds('NM1*74 is followed by its 2100B (NM1*70)', prior?.name === 'NM1' && prior['1'] === '70');
    }
    // A benefit never ends before it begins (cancelling coverage that never started ends it on its first day).
    if (segment.name === 'DTP' && segment['1'] === '349') {
      const begin = segments[index - 1];
      const follows = begin?.name === 'DTP' && begin['1'] === '348';
      problems.holds('DTP*349 follows its DTP*348', follows);
      if (follows) problems.holds('DTP*349 is not before DTP*348', segment['3']! >= begin['3']!);
    }
    if (segment.name === 'HD') {
      problems.within('HD01', GUIDE_CODES.HD01, segment['1']);
      problems.within('HD03', [...GUIDE_CODES.HD03, ...(options.companionGuideLineCodes ?? [])], segment['3']);
      problems.within('HD05', GUIDE_CODES.HD05, segment['5']);
    }
    if (segment.name === 'DMG') {
      problems.equal('DMG01', segment['1'], 'D8');
      problems.within('DMG03', GUIDE_CODES.DMG03, segment['3']);
    }
  }
  return subscribers;
}
