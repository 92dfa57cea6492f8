/**
 * What goes into an 834 for the service's records: benefit changes and coverage turned into member loops
 * (Subscriber834), with the maintenance codes the guide defines. Pure: the file service loads the rows.
 */
import { hash } from 'node:crypto';
import { addDays, compareDates } from '../../shared/dates.ts';
import type { BenefitChangeRow, ChangeKind } from '../benefit-changes/benefit-change.table.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import { coverageTier, type DependentRelationship } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type { CompanionGuide } from './edi-profile.ts';
import type { GroupCoverageItem } from '../coverage/group-coverage.repository.ts';
import type { MemberFileRow } from './edi-file-content.repository.ts';
import type { Address834, Coverage834, Dependent834, Subscriber834 } from './x12-834-records.ts';
import { INSURANCE_LINE_CODES, type EmploymentStatus834, type MaintenanceReason, type MaintenanceType } from './x12-codes.ts';

/** A member's personal data as the file needs it: the SSN decrypted only for the build. */
export interface MemberFacts {
  row: MemberFileRow;
  ssn: string | null;
}

/** HD03 of a line under the profile, or undefined when neither the guide nor the profile has a code for it. */
export function insuranceLineCodeOf(guide: CompanionGuide, line: LineOfCoverage): string | undefined {
  return guide.line_of_coverage_codes[line] ?? INSURANCE_LINE_CODES[line] ?? undefined;
}

/** What the carrier holds of a person besides the loops of this file (see CoverageContext.coveredInGroup). */
export interface Continuity {
  /** Some coverage of the person with this group goes on after a loop that ends one. */
  continuing: boolean;
  /** The person already had coverage with this group the day before a loop that adds one. */
  preexisting: boolean;
}

/**
 * INS03 of a person from the HD01s of their coverage loops (005010X220A1 INS03, 875): all additions is an
 * addition (021) of someone new to the carrier, all terminations (024) ends the person's coverage with it,
 * all reinstatements is 025. When the carrier keeps other coverage of the person (a termination of one line
 * of several) or already holds them (a line added), the person's loop is a change (001) and the HD01s say
 * what happens to each line; so is anything mixed, or a loop with no 2300 (demographics only).
 */
export function memberMaintenance(coverages: readonly Coverage834[], continuity: Continuity = { continuing: false, preexisting: false }): MaintenanceType {
  const types = new Set(coverages.map((coverage) => coverage.maintenanceType));
  if (types.size !== 1) return 'change';
  const only = [...types][0]!;
  if (only === 'cancellation_or_termination' && continuity.continuing) return 'change';
  if (only === 'addition' && continuity.preexisting) return 'change';
  return only;
}

/** INS04 of a person's loop: why it is sent (005010X220A1 INS04, code source 1203/1201). */
const MAINTENANCE_REASON_OF: Record<'terminated' | 'aged_out' | 'removed' | 'added' | 'changed' | 'reinstated' | 'demographics', MaintenanceReason> = {
  // INS04 08 Termination of Employment: the member's termination ended the coverage.
  terminated: 'termination_of_employment',
  // INS04 07 Termination of Benefits: a dependent child past the plan's age limit.
  aged_out: 'termination_of_benefits',
  // INS04 07 Termination of Benefits: coverage ended by an election.
  removed: 'termination_of_benefits',
  // INS04 EC Member Benefit Selection: the member elected it.
  added: 'member_benefit_selection',
  // INS04 EC Member Benefit Selection.
  changed: 'member_benefit_selection',
  // INS04 41 Re-enrollment: coverage ended earlier starts again without a gap.
  reinstated: 're_enrollment',
  // INS04 25 Change in Identifying Data Elements: name, address, birth date, SSN or sex.
  demographics: 'change_in_identifying_data',
};

function addressOf(json: string | null): Address834 | null {
  if (json === null) return null;
  const address = JSON.parse(json) as { line1: string; line2?: string | null; city: string; state: string; zip_code: string };
  return { line1: address.line1, line2: address.line2 ?? null, city: address.city, state: address.state, postalCode: address.zip_code.replace('-', '') };
}

/**
 * Whether the member's termination is what ended a coverage whose last day is `end` (INS04 08 Termination of
 * Employment, 005010X220A1 INS04 1203): termination ends coverage on or after the termination date (or cancels
 * coverage starting later, its last day the day before its first), so a coverage dropped by an election before
 * a termination date on record ends for another reason (07).
 */
export function endedByTermination(member: Pick<MemberFileRow, 'termination_date'>, end: string): boolean {
  return member.termination_date !== null && compareDates(end, member.termination_date) >= 0;
}

/**
 * Whether a change restores coverage this group's carrier was last told had ended (`lastSent`, the last change
 * of the member and line its files carried), without a gap: a `new` coverage, or the `change` that undoing a
 * termination records, starting at most the day after the ended coverage's last day. Sent as a reinstatement
 * (005010X220A1 INS03/HD01 875: 025 Reinstatement), not as an addition or change.
 */
export function restoresEndedCoverage(
  change: Pick<BenefitChangeRow, 'status' | 'coverage_start'>,
  lastSent: Pick<BenefitChangeRow, 'status' | 'coverage_end'> | undefined,
): boolean {
  if (change.status !== 'new' && change.status !== 'change') return false;
  if (change.coverage_start === null || lastSent?.status !== 'removed' || lastSent.coverage_end === null) return false;
  return compareDates(change.coverage_start, addDays(lastSent.coverage_end, 1)) <= 0;
}

/** INS08: terminated once the termination date has passed `asOf`, else the employment status. */
function employmentStatusOf(member: MemberFileRow, asOf: string): EmploymentStatus834 {
  if (member.termination_date !== null && compareDates(member.termination_date, asOf) < 0) return 'terminated';
  return member.employment_status ?? 'active';
}

/** REF*0F: where the profile says the subscriber id comes from. */
export function subscriberIdOf(guide: CompanionGuide, member: MemberFacts): string | undefined {
  switch (guide.subscriber_id_source) {
    case 'ssn':
      return member.ssn ?? undefined;
    case 'member_id':
      return member.row.id;
    case 'payroll_provider_external_id':
      return member.row.payroll_provider_external_id ?? undefined;
  }
}

/**
 * A keyed digest of what the carrier holds about a person (name, address, birth date, SSN, sex): stored after
 * each file, so that the next change file sends maintenance when it differs. Keyed, so the stored digest of
 * an SSN cannot be reversed by trying every SSN.
 */
export function demographicsDigest(key: string, person: { kind: 'member'; facts: MemberFacts } | { kind: 'dependent'; row: DependentRow }): string {
  const fields =
    person.kind === 'member'
      ? [
          person.facts.row.first_name,
          null,
          person.facts.row.last_name,
          person.facts.row.address,
          person.facts.row.dob,
          person.facts.ssn,
          person.facts.row.biological_sex,
        ]
      : [
          person.row.first_name,
          person.row.middle_name,
          person.row.last_name,
          person.row.address,
          person.row.dob,
          person.row.ssn_last_four,
          person.row.biological_sex,
        ];
  // SHA-256 over a 256-bit secret and the fields, in one call: a keyed digest like an HMAC for this use (an
  // equality check of values the holder of the key wrote), at a fraction of an HMAC object's cost per person.
  return hash('sha256', key + JSON.stringify(fields), 'base64url');
}

/** One person's loops in the file. */
interface PersonPart extends Continuity {
  coverages: Coverage834[];
  reason: MaintenanceReason | null;
}

export interface SubscriberParts extends PersonPart {
  member: MemberFacts;
  dependents: Map<string, PersonPart & { row: DependentRow }>;
}

export function subscriberParts(member: MemberFacts): SubscriberParts {
  return { member, coverages: [], reason: null, continuing: false, preexisting: false, dependents: new Map() };
}

function dependentPart(parts: SubscriberParts, row: DependentRow): PersonPart & { row: DependentRow } {
  const existing = parts.dependents.get(row.id);
  if (existing) return existing;
  const created = { row, coverages: [] as Coverage834[], reason: null as MaintenanceReason | null, continuing: false, preexisting: false };
  parts.dependents.set(row.id, created);
  return created;
}

export interface CoverageContext {
  guide: CompanionGuide;
  dependentsOf: (enrolledPlanId: string) => readonly string[];
  dependentRow: (id: string) => DependentRow | undefined;
  /**
   * Whether the person (a member or dependent id) is covered with this group on `date` by some coverage other
   * than `except` (an enrolled plan id); change files give it, full files need not.
   */
  coveredInGroup?: (personId: string, memberId: string, date: string, except: string) => boolean;
}

/** Adds a loop to a person's part, noting whether the carrier keeps or already holds the person. */
function addLoop(context: CoverageContext, part: PersonPart, personId: string, memberId: string, loop: Coverage834, item: GroupCoverageItem): void {
  part.coverages.push(loop);
  if (!context.coveredInGroup) return;
  if (loop.maintenanceType === 'cancellation_or_termination' && loop.benefitEnd) {
    part.continuing ||= context.coveredInGroup(personId, memberId, addDays(loop.benefitEnd, 1), item.id);
  }
  if (loop.maintenanceType === 'addition') part.preexisting ||= context.coveredInGroup(personId, memberId, addDays(loop.benefitBegin, -1), item.id);
}

function coverageLoop(
  context: CoverageContext,
  maintenanceType: MaintenanceType,
  item: GroupCoverageItem,
  relationships: readonly DependentRelationship[],
  begin: string,
  end: string | null,
): Coverage834 {
  const tier = coverageTier(relationships);
  const lineCode = insuranceLineCodeOf(context.guide, item.line_of_coverage);
  return {
    maintenanceType,
    line: item.line_of_coverage,
    ...(lineCode ? { insuranceLineCode: lineCode } : {}),
    coverageLevelCode: context.guide.coverage_level_codes[tier] ?? null,
    planDescription: item.plan_name,
    tier,
    benefitBegin: begin,
    // DTP*349 is the last day of coverage that ends: sent on terminations only, so that a carrier never reads
    // a plan year's end on an addition or change as a termination date.
    benefitEnd: maintenanceType === 'cancellation_or_termination' ? end : null,
  };
}

function relationshipsOf(context: CoverageContext, enrolledPlanId: string): DependentRelationship[] {
  return context.dependentsOf(enrolledPlanId).flatMap((id) => {
    const row = context.dependentRow(id);
    return row ? [row.member_relationship] : [];
  });
}

/**
 * Adds one benefit change to its member's loops: the subscriber's 2300 and each affected dependent's (a
 * `new` adds everyone it covers, a `removed` ends everyone it covered, a `change` adds the dependents who
 * join, ends those who leave, and changes everyone when the plan or price changed). `reinstated`: the change
 * restores coverage this group's carrier was told had ended (INS03/HD01 025).
 */
export function addBenefitChange(
  parts: SubscriberParts,
  change: BenefitChangeRow,
  previous: GroupCoverageItem | undefined,
  next: GroupCoverageItem | undefined,
  context: CoverageContext,
  reinstated: boolean,
): void {
  const kinds = JSON.parse(change.changes) as ChangeKind[];
  if (change.status === 'removed' && previous) {
    const end = change.coverage_end ?? previous.effective_end ?? previous.effective_start!;
    const begin = previous.effective_start ?? end;
    const terminated = endedByTermination(parts.member.row, end);
    const relationships = relationshipsOf(context, previous.id);
    addLoop(
      context,
      parts,
      parts.member.row.id,
      parts.member.row.id,
      coverageLoop(context, 'cancellation_or_termination', previous, relationships, begin, end),
      previous,
    );
    parts.reason ??= terminated ? MAINTENANCE_REASON_OF.terminated : MAINTENANCE_REASON_OF.removed;
    for (const dependentId of context.dependentsOf(previous.id)) {
      const row = context.dependentRow(dependentId);
      if (!row) continue;
      const part = dependentPart(parts, row);
      addLoop(context, part, row.id, parts.member.row.id, coverageLoop(context, 'cancellation_or_termination', previous, relationships, begin, end), previous);
      part.reason ??= terminated ? MAINTENANCE_REASON_OF.terminated : MAINTENANCE_REASON_OF.removed;
    }
    return;
  }
  if (!next) return;
  const begin = change.coverage_start ?? next.effective_start!;
  const end = next.effective_end;
  const relationships = relationshipsOf(context, next.id);
  if (change.status === 'new' || reinstated) {
    const type: MaintenanceType = reinstated ? 'reinstatement' : 'addition';
    addLoop(context, parts, parts.member.row.id, parts.member.row.id, coverageLoop(context, type, next, relationships, begin, end), next);
    parts.reason ??= reinstated ? MAINTENANCE_REASON_OF.reinstated : MAINTENANCE_REASON_OF.added;
    for (const dependentId of context.dependentsOf(next.id)) {
      const row = context.dependentRow(dependentId);
      if (!row) continue;
      const part = dependentPart(parts, row);
      addLoop(context, part, row.id, parts.member.row.id, coverageLoop(context, type, next, relationships, begin, end), next);
      part.reason ??= reinstated ? MAINTENANCE_REASON_OF.reinstated : MAINTENANCE_REASON_OF.added;
    }
    return;
  }
  // A change: the plan (or its price, volume or dependents) moved on this line within the group.
  addLoop(context, parts, parts.member.row.id, parts.member.row.id, coverageLoop(context, 'change', next, relationships, begin, end), next);
  parts.reason ??= MAINTENANCE_REASON_OF.changed;
  const before = new Set(previous ? context.dependentsOf(previous.id) : []);
  const after = new Set(context.dependentsOf(next.id));
  const planMoved = kinds.includes('plan_change') || kinds.includes('date_change');
  for (const dependentId of after) {
    const row = context.dependentRow(dependentId);
    if (!row) continue;
    if (!before.has(dependentId)) {
      const part = dependentPart(parts, row);
      addLoop(context, part, row.id, parts.member.row.id, coverageLoop(context, 'addition', next, relationships, begin, end), next);
      part.reason ??= MAINTENANCE_REASON_OF.added;
    } else if (planMoved) {
      const part = dependentPart(parts, row);
      addLoop(context, part, row.id, parts.member.row.id, coverageLoop(context, 'change', next, relationships, begin, end), next);
      part.reason ??= MAINTENANCE_REASON_OF.changed;
    }
  }
  if (!previous) return;
  for (const dependentId of before) {
    if (after.has(dependentId)) continue;
    const row = context.dependentRow(dependentId);
    if (!row) continue;
    const part = dependentPart(parts, row);
    // Covered through the day before the new coverage starts.
    addLoop(
      context,
      part,
      row.id,
      parts.member.row.id,
      coverageLoop(
        context,
        'cancellation_or_termination',
        previous,
        relationshipsOf(context, previous.id),
        previous.effective_start ?? begin,
        addDays(begin, -1),
      ),
      previous,
    );
    part.reason ??= kinds.includes('dependent_change') && row.member_relationship !== 'spouse' ? MAINTENANCE_REASON_OF.aged_out : MAINTENANCE_REASON_OF.removed;
  }
}

/** A full file's loops for one member: every line in force on the date, each person with 030 (audit). */
export function addCoverageInForce(parts: SubscriberParts, item: GroupCoverageItem, context: CoverageContext): void {
  const begin = item.effective_start!;
  const relationships = relationshipsOf(context, item.id);
  parts.coverages.push(coverageLoop(context, 'audit_or_compare', item, relationships, begin, item.effective_end));
  for (const dependentId of context.dependentsOf(item.id)) {
    const row = context.dependentRow(dependentId);
    if (!row) continue;
    dependentPart(parts, row).coverages.push(coverageLoop(context, 'audit_or_compare', item, relationships, begin, item.effective_end));
  }
}

/** Marks a person whose demographics changed with nothing else to send: a 001 loop with no 2300. */
export function addDemographicChange(parts: SubscriberParts, dependent: DependentRow | undefined): void {
  if (dependent) dependentPart(parts, dependent).reason ??= MAINTENANCE_REASON_OF.demographics;
  else parts.reason ??= MAINTENANCE_REASON_OF.demographics;
}

/**
 * DTP*356 and DTP*357 of a person's loop in a change file: the eligibility that begins with an addition of
 * someone new to the carrier (the first day of their coverage) or ends with the termination of all of it (the
 * last covered day); none when the carrier keeps covering them or already did.
 */
function eligibilityOf(part: PersonPart): { eligibilityBegin: string | null; eligibilityEnd: string | null } {
  const types = new Set(part.coverages.map((coverage) => coverage.maintenanceType));
  const only = types.size === 1 ? [...types][0] : undefined;
  const begins = part.coverages.map((coverage) => coverage.benefitBegin).sort();
  const ends = part.coverages.flatMap((coverage) => (coverage.benefitEnd ? [coverage.benefitEnd] : [])).sort();
  return {
    eligibilityBegin: (only === 'addition' || only === 'reinstatement') && !part.preexisting ? (begins[0] ?? null) : null,
    eligibilityEnd: only === 'cancellation_or_termination' && !part.continuing ? (ends.at(-1) ?? null) : null,
  };
}

/** The loops of one member, ready for the writer; undefined when there is no subscriber id to send. */
export function toSubscriber834(
  parts: SubscriberParts,
  guide: CompanionGuide,
  asOf: string,
  kind: 'change' | 'full',
  dependentSsn: (row: DependentRow) => string | null = () => null,
): Subscriber834 | undefined {
  const { row, ssn } = parts.member;
  const subscriberId = subscriberIdOf(guide, parts.member);
  if (subscriberId === undefined) return undefined;
  const dependents: Dependent834[] = [...parts.dependents.values()].map((part) => ({
    maintenanceType: kind === 'full' ? 'audit_or_compare' : memberMaintenance(part.coverages, part),
    maintenanceReason: kind === 'full' ? null : part.reason,
    name: { last: part.row.last_name, first: part.row.first_name, middle: part.row.middle_name },
    ssn: guide.send_dependent_ssn === true ? dependentSsn(part.row) : null,
    address: addressOf(part.row.address),
    dateOfBirth: part.row.dob,
    sex: part.row.biological_sex,
    relationship: part.row.member_relationship,
    ...(kind === 'change' ? eligibilityOf(part) : {}),
    coverages: part.coverages,
  }));
  const employmentStatus = employmentStatusOf(row, asOf);
  return {
    maintenanceType: kind === 'full' ? 'audit_or_compare' : memberMaintenance(parts.coverages, parts),
    maintenanceReason: kind === 'full' ? null : parts.reason,
    name: { last: row.last_name, first: row.first_name },
    ssn: guide.send_member_ssn ? ssn : null,
    address: addressOf(row.address),
    dateOfBirth: row.dob,
    sex: row.biological_sex,
    subscriberId,
    employmentStatus,
    employmentBegin: row.hire_date,
    employmentEnd: employmentStatus === 'terminated' ? row.termination_date : null,
    ...(kind === 'change' ? eligibilityOf(parts) : {}),
    coverages: parts.coverages,
    dependents,
  };
}
