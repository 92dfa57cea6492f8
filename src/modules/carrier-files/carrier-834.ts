/**
 * A carrier's 834 (005010X220A1), as carriers send what they hold (a full file, INS03 030 audit or any other):
 * read as hostile input with the service's X12 segment reader, each 2300 HD loop of each 2000 INS loop becoming
 * the census row of that person on that line (carrier-census.ts), so one comparison serves both formats. A text
 * that is not X12 is a 400 on `content`; a loop that cannot be read is a row problem (its segment position as
 * the line, the element as the column).
 */
import { compareCodeUnits } from '../../shared/text.ts';
import { isCalendarDate } from '../../shared/dates.ts';
import { inputError, ValidationFailed } from '../../shared/errors.ts';
import type { CompanionGuide } from '../edi/edi-profile.ts';
import { COVERAGE_LEVEL_CODES, INDIVIDUAL_RELATIONSHIP_CODES, INSURANCE_LINE_CODES } from '../edi/x12-codes.ts';
import { AcknowledgementFormatError, element, readDelimiters, splitSegments, WHITE_SPACE, type Segment } from '../edi/x12-segment-reader.ts';
import type { CoverageTier } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { MAX_CENSUS_ROWS, type CensusRelationship, type CensusRow, type RowProblem } from './carrier-census.ts';

/** HD03 plan types a carrier may send for medical coverage (005010X220A1 HD03 1205: HMO, PPO, EPO, POS). */
const MEDICAL_PLAN_TYPES = ['HMO', 'PPO', 'EPO', 'POS'];

/** HD03 -> line: the profile's own codes first, then the guide's. */
function lineOf(code: string, guide: Pick<CompanionGuide, 'line_of_coverage_codes'> | undefined): LineOfCoverage | undefined {
  const own = Object.entries(guide?.line_of_coverage_codes ?? {}).find(([, value]) => value === code);
  if (own) return own[0] as LineOfCoverage;
  if (MEDICAL_PLAN_TYPES.includes(code)) return 'medical';
  return (Object.entries(INSURANCE_LINE_CODES).find(([, value]) => value === code)?.[0] as LineOfCoverage | undefined) ?? undefined;
}

/** HD05 -> the tiers it stands for: the profile's codes, else the guide's (ECH is one child or several). */
export function levelsOf(code: string, guide: Pick<CompanionGuide, 'coverage_level_codes'> | undefined): CoverageTier[] {
  const codes = { ...COVERAGE_LEVEL_CODES, ...(guide?.coverage_level_codes ?? {}) };
  return (Object.entries(codes) as [CoverageTier, string][]).filter(([, value]) => value === code).map(([tier]) => tier);
}

/** INS02 -> the census relationship (the subscriber, 18, is the employee; another code its first relationship). */
function relationshipOf(code: string): CensusRelationship | undefined {
  if (code === INDIVIDUAL_RELATIONSHIP_CODES.self) return 'employee';
  const found = (Object.entries(INDIVIDUAL_RELATIONSHIP_CODES) as [string, string][]).find(([name, value]) => name !== 'self' && value === code);
  return found?.[0] as CensusRelationship | undefined;
}

/** CCYYMMDD -> YYYY-MM-DD, or undefined when not a calendar date. */
function dateOf(value: string | undefined): string | undefined {
  if (value === undefined || !/^\d{8}$/.test(value)) return undefined;
  const date = `${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}`;
  return isCalendarDate(date) ? date : undefined;
}

interface Person {
  segment: Segment;
  relationship: CensusRelationship | undefined;
  subscriberId: string | null;
  firstName: string | null;
  lastName: string | null;
  dob: string | null;
  problem: RowProblem | undefined;
}

/** Reads an 834: the census rows of its coverage loops and the loops it could not read. */
export function parse834(
  content: string,
  guide: Pick<CompanionGuide, 'line_of_coverage_codes' | 'coverage_level_codes'> | undefined,
): { rows: CensusRow[]; problems: RowProblem[] } {
  let segments: Segment[];
  try {
    let start = 0;
    while (start < content.length && WHITE_SPACE.has(content.charAt(start))) start += 1;
    if (!content.startsWith('ISA', start)) throw new AcknowledgementFormatError('An X12 interchange starts with ISA');
    segments = splitSegments(content, start, readDelimiters(content, start));
  } catch (error) {
    if (error instanceof AcknowledgementFormatError) throw new ValidationFailed([inputError(['content'], `Not an X12 834: ${error.message}.`)]);
    throw error;
  }
  if (!segments.some((segment) => segment.id === 'ST' && element(segment, 1) === '834')) {
    throw new ValidationFailed([inputError(['content'], 'Not an X12 834: no ST*834 transaction set.')]);
  }
  const rows: CensusRow[] = [];
  const problems: RowProblem[] = [];
  let person: Person | undefined;
  let coverage:
    | {
        segment: Segment;
        line: LineOfCoverage | undefined;
        plan: string;
        levels: CoverageTier[] | null;
        start: string | null;
        end: string | null;
        problem?: RowProblem;
      }
    | undefined;
  const closeCoverage = () => {
    if (person === undefined || coverage === undefined) return;
    const fault =
      person.problem ??
      coverage.problem ??
      (person.subscriberId === null
        ? { line: person.segment.position, column: 'REF02', message: 'The member loop has no REF*0F subscriber id.' }
        : person.relationship === undefined
          ? { line: person.segment.position, column: 'INS02', message: 'Not an INS02 relationship code of 005010X220A1.' }
          : coverage.line === undefined
            ? { line: coverage.segment.position, column: 'HD03', message: 'An HD03 code of no line of coverage (the guide or the group profile).' }
            : undefined);
    if (fault) problems.push(fault);
    else {
      rows.push({
        line: coverage.segment.position,
        subscriberId: person.subscriberId!,
        relationship: person.relationship!,
        lineOfCoverage: coverage.line!,
        plan: coverage.plan,
        firstName: person.firstName,
        lastName: person.lastName,
        dob: person.dob,
        coverageLevels: coverage.levels,
        coverageStart: coverage.start,
        coverageEnd: coverage.end,
      });
    }
    coverage = undefined;
  };
  for (const segment of segments) {
    switch (segment.id) {
      case 'INS':
        closeCoverage();
        person = {
          segment,
          relationship: relationshipOf(element(segment, 2) ?? ''),
          subscriberId: null,
          firstName: null,
          lastName: null,
          dob: null,
          problem: undefined,
        };
        break;
      case 'REF':
        if (person && coverage === undefined && element(segment, 1) === '0F') person.subscriberId = element(segment, 2) ?? null;
        break;
      case 'NM1':
        if (person && coverage === undefined && element(segment, 1) === 'IL') {
          person.lastName = element(segment, 3) ?? null;
          person.firstName = element(segment, 4) ?? null;
        }
        break;
      case 'DMG':
        if (person && coverage === undefined) {
          const dob = dateOf(element(segment, 2));
          if (dob === undefined) person.problem ??= { line: segment.position, column: 'DMG02', message: 'Not a CCYYMMDD date.' };
          else person.dob = dob;
        }
        break;
      case 'HD':
        closeCoverage();
        if (person) {
          const level = element(segment, 5);
          coverage = {
            segment,
            line: lineOf(element(segment, 3) ?? '', guide),
            plan: element(segment, 4) ?? '',
            levels: level ? levelsOf(level, guide) : null,
            start: null,
            end: null,
          };
        }
        break;
      case 'DTP':
        if (coverage) {
          const qualifier = element(segment, 1);
          if (qualifier !== '348' && qualifier !== '349') break;
          const date = dateOf(element(segment, 3));
          if (date === undefined) coverage.problem ??= { line: segment.position, column: 'DTP03', message: 'Not a CCYYMMDD date.' };
          else if (qualifier === '348') coverage.start = date;
          else coverage.end = date;
        }
        break;
      case 'SE':
        closeCoverage();
        person = undefined;
        break;
      default:
        break;
    }
    if (rows.length > MAX_CENSUS_ROWS) throw new ValidationFailed([inputError(['content'], `At most ${MAX_CENSUS_ROWS} coverage loops in one file.`)]);
  }
  closeCoverage();
  problems.sort((a, b) => a.line - b.line || compareCodeUnits(a.column, b.column));
  return { rows, problems };
}
