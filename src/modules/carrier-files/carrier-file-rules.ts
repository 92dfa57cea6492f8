/**
 * What a carrier's file says against our truth (docs/decisions.md "Carrier files"): per member and line, what the
 * carrier holds that we do not (`extra`), what we cover that it lacks (`missing`), and where they differ
 * (`plan`, `tier`, `dates`, `dependents`), and per person the demographics that differ. Pure: the service reads
 * both sides; names are compared as an 834 carries them (folded to its character set, case aside).
 */
import { foldToX12 } from '../../shared/x12-text.ts';
import { coverageTier, type CoverageTier, type DependentRelationship } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import { toldEnd } from '../reconciliation/reconciliation-rules.ts';
import type { CensusRow } from './carrier-census.ts';

export const CARRIER_FILE_DISCREPANCY_KINDS = ['missing', 'extra', 'plan', 'tier', 'dates', 'dependents', 'demographics'] as const;
export type CarrierFileDiscrepancyKind = (typeof CARRIER_FILE_DISCREPANCY_KINDS)[number];

export interface Person {
  id: string;
  firstName: string;
  lastName: string;
  dob: string;
}

export interface OurDependent extends Person {
  relationship: DependentRelationship;
}

/** Our coverage of one line of a member on the file's day. */
export interface OurLine {
  lineOfCoverage: LineOfCoverage;
  planId: string;
  planName: string;
  start: string | null;
  end: string | null;
  planEnd: string;
  dependentIds: readonly string[];
}

/** A member of ours: who they are, their dependents, and their coverage on the group's plans on the day. */
export interface OurMember extends Person {
  dependents: readonly OurDependent[];
  lines: readonly OurLine[];
}

/** A dependent as a file row names them. */
export interface CarrierPerson {
  relationship: CensusRow['relationship'];
  firstName: string | null;
  lastName: string | null;
  dob: string | null;
}

/**
 * What the file said, as it gave it: a person's demographics (demographics), or a line's coverage (the other
 * kinds: the employee row's plan, dates and coverage level, and the dependents its rows name). Kept so that an
 * admin sees what was compared and can accept the carrier's value.
 */
export type CarrierValues =
  | { firstName: string | null; lastName: string | null; dob: string | null }
  | {
      plan: string | null;
      coverageStart: string | null;
      coverageEnd: string | null;
      coverageLevels: readonly CoverageTier[] | null;
      dependents: CarrierPerson[];
    };

export interface CarrierFileDiscrepancy {
  kind: CarrierFileDiscrepancyKind;
  member: string | null;
  dependent: string | null;
  lineOfCoverage: LineOfCoverage | null;
  /** The fields that differ (dates and demographics). */
  fields: string[];
  /** The file's lines the discrepancy comes from (none for coverage the file lacks). */
  fileLines: number[];
  message: string;
  /** What the file said (absent from comparisons stored before it was kept). */
  carrier?: CarrierValues;
}

/** The coverage a line's rows give: the employee row's (none when the file lacks it) and the dependents named. */
function coverageValues(employee: CensusRow | undefined, rows: readonly CensusRow[], withPeople = true): CarrierValues {
  return {
    plan: employee?.plan ?? null,
    coverageStart: employee?.coverageStart ?? null,
    coverageEnd: employee?.coverageEnd ?? null,
    coverageLevels: employee?.coverageLevels ?? null,
    dependents: withPeople
      ? rows
          .filter((row) => row.relationship !== 'employee')
          .map((row) => ({ relationship: row.relationship, firstName: row.firstName, lastName: row.lastName, dob: row.dob }))
      : [],
  };
}

function demographicValues(row: CensusRow): CarrierValues {
  return { firstName: row.firstName, lastName: row.lastName, dob: row.dob };
}

const nameKey = (value: string | null) => (value === null ? null : foldToX12(value).toUpperCase().replace(/\s+/g, ' ').trim());

function demographicFields(ours: Person, row: CensusRow): string[] {
  const fields: string[] = [];
  if (row.firstName !== null && nameKey(row.firstName) !== nameKey(ours.firstName)) fields.push('first_name');
  if (row.lastName !== null && nameKey(row.lastName) !== nameKey(ours.lastName)) fields.push('last_name');
  if (row.dob !== null && row.dob !== ours.dob) fields.push('dob');
  return fields;
}

/** Our dependent a file row names: the same first name and date of birth (the carrier's own key for a dependent). */
function dependentOf(member: OurMember, row: CensusRow): OurDependent | undefined {
  return member.dependents.find((dependent) => row.dob === dependent.dob && nameKey(row.firstName) === nameKey(dependent.firstName));
}

function discrepancy(kind: CarrierFileDiscrepancyKind, fields: Partial<CarrierFileDiscrepancy> & { message: string }): CarrierFileDiscrepancy {
  return { kind, member: null, dependent: null, lineOfCoverage: null, fields: [], fileLines: [], ...fields };
}

/**
 * The discrepancies of one member: `rows` are the file's rows of their subscriber id (none when the file lacks
 * them), `member` what we hold. In line order, then the demographics.
 */
export function memberDiscrepancies(member: OurMember, rows: readonly CensusRow[]): CarrierFileDiscrepancy[] {
  const found: CarrierFileDiscrepancy[] = [];
  const lines = [...new Set([...member.lines.map((line) => line.lineOfCoverage), ...rows.map((row) => row.lineOfCoverage)])].sort();
  for (const lineOfCoverage of lines) {
    const ours = member.lines.find((line) => line.lineOfCoverage === lineOfCoverage);
    const ofLine = rows.filter((row) => row.lineOfCoverage === lineOfCoverage);
    const employee = ofLine.find((row) => row.relationship === 'employee');
    const at = { member: member.id, lineOfCoverage };
    const carrier = employee ? coverageValues(employee, ofLine) : undefined;
    if (ours === undefined) {
      if (ofLine.length > 0) {
        found.push(
          discrepancy('extra', {
            ...at,
            fileLines: ofLine.map((row) => row.line),
            message: `The carrier holds ${lineOfCoverage} coverage we do not have on the day.`,
            carrier: coverageValues(employee ?? ofLine[0], ofLine),
          }),
        );
      }
      continue;
    }
    if (employee === undefined) {
      found.push(
        discrepancy('missing', {
          ...at,
          fileLines: ofLine.map((row) => row.line),
          message: `We cover the member on ${lineOfCoverage}; the file does not.`,
          carrier: coverageValues(undefined, ofLine),
        }),
      );
      continue;
    }
    if (employee.plan !== ours.planId && nameKey(employee.plan) !== nameKey(ours.planName)) {
      found.push(
        discrepancy('plan', {
          ...at,
          fileLines: [employee.line],
          message: `The carrier holds another plan than ours (${ours.planId}, ${ours.planName}).`,
          carrier,
        }),
      );
    }
    const dateFields = [
      ...(employee.coverageStart !== null && employee.coverageStart !== ours.start ? ['coverage_start'] : []),
      ...(employee.coverageEnd !== null && toldEnd(employee.coverageEnd, ours.planEnd) !== ours.end ? ['coverage_end'] : []),
    ];
    if (dateFields.length > 0) {
      found.push(
        discrepancy('dates', {
          ...at,
          fields: dateFields,
          fileLines: [employee.line],
          message: `Our coverage runs from ${ours.start ?? 'the plan start'} to ${ours.end ?? 'the plan year end'}.`,
          carrier,
        }),
      );
    }
    const dependentRows = ofLine.filter((row) => row.relationship !== 'employee');
    const matched = dependentRows.map((row) => ({ row, dependent: dependentOf(member, row) }));
    const carrierIds = new Set(matched.flatMap(({ dependent }) => (dependent ? [dependent.id] : [])));
    const notOurs = matched.filter(({ dependent }) => dependent === undefined || !ours.dependentIds.includes(dependent.id));
    const notTheirs = ours.dependentIds.filter((id) => !carrierIds.has(id));
    if (notOurs.length > 0 || notTheirs.length > 0) {
      found.push(
        discrepancy('dependents', {
          ...at,
          fileLines: notOurs.map(({ row }) => row.line),
          message: `${notTheirs.length} dependent(s) we cover are not in the file (${notTheirs.join(', ') || 'none'}); ${notOurs.length} row(s) of the file name dependents we do not cover on this line.`,
          carrier,
        }),
      );
    }
    const ourTier: CoverageTier = coverageTier(
      member.dependents.filter((dependent) => ours.dependentIds.includes(dependent.id)).map((dependent) => dependent.relationship),
    );
    if (employee.coverageLevels !== null && !employee.coverageLevels.includes(ourTier)) {
      found.push(discrepancy('tier', { ...at, fileLines: [employee.line], message: `Our coverage level is ${ourTier}.`, carrier }));
    }
  }
  const employeeRow = rows.find((row) => row.relationship === 'employee' && demographicFields(member, row).length > 0);
  if (employeeRow) {
    found.push(
      discrepancy('demographics', {
        member: member.id,
        fields: demographicFields(member, employeeRow),
        fileLines: [employeeRow.line],
        message: 'The carrier holds other demographics for the member.',
        carrier: demographicValues(employeeRow),
      }),
    );
  }
  for (const dependent of member.dependents) {
    const row = rows.find(
      (candidate) =>
        candidate.relationship !== 'employee' && dependentOf(member, candidate)?.id === dependent.id && demographicFields(dependent, candidate).length > 0,
    );
    if (row) {
      found.push(
        discrepancy('demographics', {
          member: member.id,
          dependent: dependent.id,
          fields: demographicFields(dependent, row),
          fileLines: [row.line],
          message: 'The carrier holds other demographics for the dependent.',
          carrier: demographicValues(row),
        }),
      );
    }
  }
  return found;
}

/** The rows of a subscriber id no member of ours has: all the carrier holds of them is extra. */
export function unknownSubscriberDiscrepancy(rows: readonly CensusRow[]): CarrierFileDiscrepancy {
  return discrepancy('extra', {
    fileLines: rows.map((row) => row.line),
    message: 'No member of the employer has this subscriber id: the carrier holds someone we do not cover.',
    // Their coverage as the file gives it, not the people: we keep no personal data of someone who is not ours.
    carrier: coverageValues(rows.find((row) => row.relationship === 'employee') ?? rows[0], rows, false),
  });
}
