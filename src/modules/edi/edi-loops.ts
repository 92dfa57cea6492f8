/**
 * What goes into an 834 for the service's records: benefit changes and coverage turned into member loops
 * (Subscriber834), with the maintenance codes the guide defines. Pure: the file service loads the rows.
 */
import { addDays, compareDates } from '../../shared/dates.ts';
import type { BenefitChangeRow, ChangeKind } from '../benefit-changes/benefit-change.table.ts';
import type { DependentRow } from '../dependents/dependent.table.ts';
import { coverageTier, type DependentRelationship } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type { CompanionGuide } from './edi-profile.ts';
import type { GroupCoverageItem } from '../coverage/group-coverage.repository.ts';
import type { MemberFileRow } from './edi-file-content.repository.ts';
import type { Address834, Coverage834, DemographicChange834, Dependent834, Subscriber834 } from './x12-834-records.ts';
import { subscriberIdOf, type MemberFacts } from './edi-people.ts';
import { terminationReasonCodeOf, type EventReasons } from './x12-834-reasons.ts';
import { INSURANCE_LINE_CODES, type EmploymentStatus834, type MaintenanceReason, type MaintenanceType } from './x12-codes.ts';

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

function addressOf(json: string | null): Address834 | null {
  if (json === null) return null;
  const address = JSON.parse(json) as { line1: string; line2?: string | null; city: string; state: string; zip_code: string };
  return { line1: address.line1, line2: address.line2 ?? null, city: address.city, state: address.state, postalCode: address.zip_code.replace('-', '') };
}

/**
 * Whether the member's termination is what ended a coverage whose last day is `end` (INS04 by the termination's
 * reason, 08 Termination of Employment unless it says otherwise, 005010X220A1 INS04 1203): termination ends coverage on or after the termination date (or cancels
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

/**
 * INS08 (005010X220A1 INS08, 584): once the termination date has passed `asOf`, RT Retired for a retirement and
 * TE Terminated for any other reason; else L1 Leave of Absence while on a leave; else the employment status.
 */
export function employmentStatusOf(
  member: Pick<MemberFileRow, 'termination_date' | 'termination_reason' | 'employment_status'>,
  asOf: string,
  onLeave = false,
): EmploymentStatus834 {
  if (member.termination_date !== null && compareDates(member.termination_date, asOf) < 0)
    return member.termination_reason === 'retirement' ? 'retired' : 'terminated';
  if (onLeave) return 'leave_of_absence';
  return member.employment_status ?? 'active';
}

/** One 2300 loop of a person, with what the person's story needs besides the writer's fields. */
interface CoverageLoop extends Coverage834 {
  /** The coverage (enrolled plan) the loop is about. */
  itemId: string;
  /** INS04 the loop gives its person (the event behind it). */
  reason: MaintenanceReason;
  /** A change onto another plan: the coverage it replaces, as the termination that ends it the day before. */
  replaces?: CoverageLoop;
}

/** One person's loops in the file. */
interface PersonPart extends Continuity {
  loops: CoverageLoop[];
  /** Set when the person's demographics differ from what the carrier was last sent. */
  demographics: DemographicChange834 | null;
}

export interface SubscriberParts extends PersonPart {
  member: MemberFacts;
  dependents: Map<string, PersonPart & { row: DependentRow }>;
}

export function subscriberParts(member: MemberFacts): SubscriberParts {
  return { member, loops: [], demographics: null, continuing: false, preexisting: false, dependents: new Map() };
}

function dependentPart(parts: SubscriberParts, row: DependentRow): PersonPart & { row: DependentRow } {
  const existing = parts.dependents.get(row.id);
  if (existing) return existing;
  const created = { row, loops: [] as CoverageLoop[], demographics: null, continuing: false, preexisting: false };
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
function addLoop(context: CoverageContext, part: PersonPart, personId: string, memberId: string, loop: CoverageLoop): void {
  part.loops.push(loop);
  if (!context.coveredInGroup) return;
  if (loop.maintenanceType === 'cancellation_or_termination' && loop.benefitEnd) {
    part.continuing ||= context.coveredInGroup(personId, memberId, addDays(loop.benefitEnd, 1), loop.itemId);
  }
  if (loop.maintenanceType === 'addition') part.preexisting ||= context.coveredInGroup(personId, memberId, addDays(loop.benefitBegin, -1), loop.itemId);
}

function coverageLoop(
  context: CoverageContext,
  maintenanceType: MaintenanceType,
  item: GroupCoverageItem,
  relationships: readonly DependentRelationship[],
  begin: string,
  end: string | null,
  reason: MaintenanceReason,
): CoverageLoop {
  const tier = coverageTier(relationships);
  const lineCode = insuranceLineCodeOf(context.guide, item.line_of_coverage);
  return {
    itemId: item.id,
    reason,
    maintenanceType,
    line: item.line_of_coverage,
    ...(lineCode ? { insuranceLineCode: lineCode } : {}),
    coverageLevelCode: context.guide.coverage_level_codes[tier] ?? null,
    planDescription: item.plan_name,
    tier,
    benefitBegin: begin,
    // DTP*349 is the last day of coverage that ends: sent on terminations only, so that a carrier never reads
    // a plan year's end on an addition or change as a termination date. Coverage that never started (its last
    // day before its first) is cancelled the 834 way: terminated on its first day (DTP*349 = DTP*348).
    benefitEnd: maintenanceType === 'cancellation_or_termination' && end !== null ? (compareDates(end, begin) < 0 ? begin : end) : null,
  };
}

function relationshipsOf(context: CoverageContext, enrolledPlanId: string): DependentRelationship[] {
  return context.dependentsOf(enrolledPlanId).flatMap((id) => {
    const row = context.dependentRow(id);
    return row ? [row.member_relationship] : [];
  });
}

/** What a benefit change is sent as, besides its rows: the INS04 codes of its event, and whether it reinstates. */
export interface ChangeFacts {
  reasons: EventReasons;
  /** The change restores coverage this group's carrier was told had ended (INS03/HD01 025). */
  reinstated: boolean;
}

/**
 * Adds one benefit change to its member's loops: the subscriber's 2300 and each affected dependent's (a
 * `new` adds everyone it covers, a `removed` ends everyone it covered, a `change` adds the dependents who
 * join, ends those who leave, and changes everyone when the plan or price changed). INS04 comes from the
 * event (`facts.reasons`): the termination reason's code (x12-834-reasons.ts TERMINATION_REASON_CODES) for
 * coverage the member's termination ends, 41 for reinstatements.
 */
export function addBenefitChange(
  parts: SubscriberParts,
  change: BenefitChangeRow,
  previous: GroupCoverageItem | undefined,
  next: GroupCoverageItem | undefined,
  context: CoverageContext,
  facts: ChangeFacts,
): void {
  const kinds = JSON.parse(change.changes) as ChangeKind[];
  const memberId = parts.member.row.id;
  const people = (item: GroupCoverageItem) =>
    context.dependentsOf(item.id).flatMap((id) => {
      const row = context.dependentRow(id);
      return row ? [row] : [];
    });
  if (change.status === 'removed' && previous) {
    const end = change.coverage_end ?? previous.effective_end ?? previous.effective_start!;
    const begin = previous.effective_start ?? end;
    const reason = endedByTermination(parts.member.row, end) ? terminationReasonCodeOf(parts.member.row.termination_reason) : facts.reasons.ends;
    const relationships = relationshipsOf(context, previous.id);
    addLoop(context, parts, memberId, memberId, coverageLoop(context, 'cancellation_or_termination', previous, relationships, begin, end, reason));
    for (const row of people(previous)) {
      addLoop(
        context,
        dependentPart(parts, row),
        row.id,
        memberId,
        coverageLoop(context, 'cancellation_or_termination', previous, relationships, begin, end, reason),
      );
    }
    return;
  }
  if (!next) return;
  const begin = change.coverage_start ?? next.effective_start!;
  const end = next.effective_end;
  const relationships = relationshipsOf(context, next.id);
  if (change.status === 'new' || facts.reinstated) {
    const type: MaintenanceType = facts.reinstated ? 'reinstatement' : 'addition';
    const reason: MaintenanceReason = facts.reinstated ? 're_enrollment' : facts.reasons.joins;
    addLoop(context, parts, memberId, memberId, coverageLoop(context, type, next, relationships, begin, end, reason));
    for (const row of people(next))
      addLoop(context, dependentPart(parts, row), row.id, memberId, coverageLoop(context, type, next, relationships, begin, end, reason));
    return;
  }
  // A change: the plan (or its price, volume or dependents) moved on this line within the group.
  const joins = facts.reasons.joins;
  const planMoved = kinds.includes('plan_change') || kinds.includes('date_change');
  // The coverage a plan change replaces, as the termination a person's story sends when it ends in this file.
  const replaced = (): CoverageLoop | undefined =>
    previous && previous.id !== next.id && kinds.includes('plan_change')
      ? coverageLoop(
          context,
          'cancellation_or_termination',
          previous,
          relationshipsOf(context, previous.id),
          previous.effective_start ?? begin,
          addDays(begin, -1),
          joins,
        )
      : undefined;
  const changed = (): CoverageLoop => {
    const loop = coverageLoop(context, 'change', next, relationships, begin, end, joins);
    const replaces = replaced();
    return replaces ? { ...loop, replaces } : loop;
  };
  addLoop(context, parts, memberId, memberId, changed());
  const before = new Set(previous ? context.dependentsOf(previous.id) : []);
  for (const row of people(next)) {
    if (!before.has(row.id))
      addLoop(context, dependentPart(parts, row), row.id, memberId, coverageLoop(context, 'addition', next, relationships, begin, end, joins));
    else if (planMoved) addLoop(context, dependentPart(parts, row), row.id, memberId, changed());
  }
  if (!previous) return;
  const after = new Set(context.dependentsOf(next.id));
  for (const row of people(previous)) {
    if (after.has(row.id)) continue;
    // Covered through the day before the new coverage starts.
    const loop = coverageLoop(
      context,
      'cancellation_or_termination',
      previous,
      relationshipsOf(context, previous.id),
      previous.effective_start ?? begin,
      addDays(begin, -1),
      facts.reasons.ends,
    );
    addLoop(context, dependentPart(parts, row), row.id, memberId, loop);
  }
}

/** A full file's loops for one member: every line in force on the date, each person with 030 (audit). */
export function addCoverageInForce(parts: SubscriberParts, item: GroupCoverageItem, context: CoverageContext): void {
  const begin = item.effective_start!;
  const relationships = relationshipsOf(context, item.id);
  const loop = () => coverageLoop(context, 'audit_or_compare', item, relationships, begin, item.effective_end, 'no_reason_given');
  parts.loops.push(loop());
  for (const dependentId of context.dependentsOf(item.id)) {
    const row = context.dependentRow(dependentId);
    if (row) dependentPart(parts, row).loops.push(loop());
  }
}

/** Marks a person whose demographics changed (their loop of its own: INS03 001, INS04 25, DTP*303, 2100B). */
export function addDemographicChange(parts: SubscriberParts, dependent: DependentRow | undefined, change: DemographicChange834): void {
  if (dependent) dependentPart(parts, dependent).demographics = change;
  else parts.demographics = change;
}

/** A person's loop as the writer takes it: INS03, INS04, the 2300 loops and DTP*356/357. */
interface PersonLoop {
  maintenanceType: MaintenanceType;
  maintenanceReason: MaintenanceReason | null;
  coverages: Coverage834[];
  eligibilityBegin: string | null;
  eligibilityEnd: string | null;
}

function toCoverage834(loop: CoverageLoop): Coverage834 {
  const { itemId: _itemId, reason: _reason, replaces: _replaces, ...coverage } = loop;
  return coverage;
}

/**
 * Each coverage's story in the file, one loop per coverage and kind: a coverage added and ended in the same
 * file is one addition with its last day (DTP*349); a coverage changed (onto another plan) and ended is the
 * termination of the plan it replaced (the day before the change) and of itself; identical loops once.
 */
function coverageStories(loops: readonly CoverageLoop[]): CoverageLoop[] {
  const endOf = new Map<string, CoverageLoop>();
  for (const loop of loops) if (loop.maintenanceType === 'cancellation_or_termination') endOf.set(loop.itemId, loop);
  const stories: CoverageLoop[] = [];
  const seen = new Set<string>();
  const push = (loop: CoverageLoop) => {
    const key = `${loop.itemId}|${loop.maintenanceType}|${loop.benefitBegin}|${loop.benefitEnd ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    stories.push(loop);
  };
  for (const loop of loops) {
    const ended = endOf.get(loop.itemId);
    if (loop.maintenanceType === 'cancellation_or_termination' || ended === undefined) push(loop);
    else if (loop.maintenanceType === 'addition' || loop.maintenanceType === 'reinstatement') {
      const last = ended.benefitEnd ?? null;
      push({ ...loop, benefitEnd: last === null || compareDates(last, loop.benefitBegin) < 0 ? loop.benefitBegin : last });
      seen.add(`${ended.itemId}|${ended.maintenanceType}|${ended.benefitBegin}|${ended.benefitEnd ?? ''}`);
    } else if (loop.replaces) push(loop.replaces);
  }
  return stories;
}

/**
 * A person's one loop in a change file, from their story in it (005010X220A1 INS03, 875): INS03 by
 * memberMaintenance; a person whose coverage with the group all ends in the file is a termination (024) whose
 * every HD is a 024 with its DTP*349, INS04 that of the last coverage to end (the termination reason's code, 08
 * by default, when the member's termination ended it), DTP*357 the last covered day; a person added and ended in one file is an addition with DTP*357.
 * INS04 is the event's code; a subscriber in the file only for a dependent's loop is XN (notification only), one
 * with a demographic change only 25.
 */
function personLoop(part: PersonPart): PersonLoop {
  const stories = coverageStories(part.loops);
  if (stories.length === 0) {
    return {
      maintenanceType: 'change',
      maintenanceReason: part.demographics ? 'change_in_identifying_data' : 'notification_only',
      coverages: [],
      eligibilityBegin: null,
      eligibilityEnd: null,
    };
  }
  const maintenanceType = memberMaintenance(stories, part);
  const ends = stories.flatMap((loop) => (loop.benefitEnd ? [loop.benefitEnd] : [])).sort(compareDates);
  const storyEnds = !part.continuing && ends.length === stories.length;
  const lastToEnd = storyEnds ? stories.filter((loop) => loop.benefitEnd === ends.at(-1)).at(-1) : undefined;
  const newToCarrier = (maintenanceType === 'addition' || maintenanceType === 'reinstatement') && !part.preexisting;
  return {
    maintenanceType,
    maintenanceReason: maintenanceType === 'cancellation_or_termination' && lastToEnd ? lastToEnd.reason : stories[0]!.reason,
    coverages: stories.map(toCoverage834),
    eligibilityBegin: newToCarrier ? ([...stories.map((loop) => loop.benefitBegin)].sort(compareDates)[0] ?? null) : null,
    eligibilityEnd: storyEnds && (maintenanceType === 'cancellation_or_termination' || newToCarrier) ? (ends.at(-1) ?? null) : null,
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
  const loopOf = (part: PersonPart): PersonLoop & { demographicChange: DemographicChange834 | null } =>
    kind === 'full'
      ? {
          maintenanceType: 'audit_or_compare',
          maintenanceReason: null,
          coverages: part.loops.map(toCoverage834),
          eligibilityBegin: null,
          eligibilityEnd: null,
          demographicChange: null,
        }
      : { ...personLoop(part), demographicChange: part.demographics };
  const dependents: Dependent834[] = [...parts.dependents.values()].map((part) => ({
    ...loopOf(part),
    name: { last: part.row.last_name, first: part.row.first_name, middle: part.row.middle_name },
    ssn: guide.send_dependent_ssn === true ? dependentSsn(part.row) : null,
    address: addressOf(part.row.address),
    dateOfBirth: part.row.dob,
    sex: part.row.biological_sex,
    relationship: part.row.member_relationship,
  }));
  const employmentStatus = employmentStatusOf(row, asOf, parts.member.onLeave);
  return {
    ...loopOf(parts),
    name: { last: row.last_name, first: row.first_name },
    ssn: guide.send_member_ssn ? ssn : null,
    address: addressOf(row.address),
    dateOfBirth: row.dob,
    sex: row.biological_sex,
    subscriberId,
    employmentStatus,
    employmentBegin: row.hire_date,
    employmentEnd: employmentStatus === 'terminated' || employmentStatus === 'retired' ? row.termination_date : null,
    dependents,
  };
}
