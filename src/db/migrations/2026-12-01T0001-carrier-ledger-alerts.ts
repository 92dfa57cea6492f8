import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code and never changes once released.

/**
 * - `carrier_ledger`: what each carrier group has been told about each member's line of coverage. One row per
 *   benefit change that tells something (and per coverage the carrier already held: `carrier_sync`
 *   enrollments, and this migration's starting point), holding the coverage as the change describes it
 *   (`item`, JSON) and the span the carrier was told (`coverage_end` null: open-ended, as an add or a change
 *   tells it). `told_at` is set when the change reaches the carrier (file delivered, API accepted, completed
 *   by hand) and cleared when a 999/TA1 sends it back; `refused_at` when the carrier refuses it.
 * - `alerts`: things a person must act on that the contract's notification types do not name (an 834 line
 *   without a code, a member an 834 cannot carry, a carrier's refusal), each recorded once per `alert_key`.
 *
 * First, files a 999/TA1 rejected give their changes back to be sent (sendBackRejectedFiles). Then the ledger
 * starts from the coverage held now: for each member, carrier group and line, the latest coverage entry of an
 * approved, synced or failed enrollment (not a line a carrier rejected) is taken as told, or as waiting for
 * its own change when that change has not reached the carrier yet (open-ended when it ends with its plan
 * year, else told to end on its last day).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('carrier_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull().references('carrier_groups.id'))
    // No foreign key: the ledger goes with the member (members' delete removes it).
    .addColumn('member_id', 'text', (c) => c.notNull())
    .addColumn('line_of_coverage', 'text', (c) => c.notNull())
    .addColumn('benefit_change_id', 'text', (c) => c.unique())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('enrolled_plan_id', 'text')
    .addColumn('plan_id', 'text', (c) => c.notNull())
    .addColumn('coverage_start', 'text')
    .addColumn('coverage_end', 'text')
    .addColumn('item', 'text', (c) => c.notNull())
    .addColumn('told_at', 'text')
    .addColumn('refused_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('carrier_ledger_member_group_line').on('carrier_ledger').columns(['member_id', 'group_id', 'line_of_coverage']).execute();

  await db.schema
    .createTable('alerts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('providers.id'))
    .addColumn('employer_id', 'text')
    .addColumn('audience', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('related_object_type', 'text', (c) => c.notNull())
    .addColumn('related_object_id', 'text', (c) => c.notNull())
    .addColumn('member_id', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('alert_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('alerts_provider_key', ['provider_id', 'alert_key'])
    .execute();
  await db.schema.createIndex('alerts_related_object').on('alerts').column('related_object_id').execute();

  await sendBackRejectedFiles(db);
  await backfillLedger(db);
}

/**
 * Until this release a 999/TA1 rejecting a file rejected its benefit changes (and failed their enrollments,
 * taking the lines out of coverage). It is a syntax acknowledgement, not a carrier's refusal: each such change
 * goes back to wait for a file, and an enrollment failed by nothing else is approved again, so its coverage
 * stands. An `edi` change could be rejected only that way. No events are recorded for this repair (a migration
 * does not write the event log); the memo says what happened.
 */
async function sendBackRejectedFiles(db: Kysely<unknown>): Promise<void> {
  await sql`
    update benefit_changes
    set delivery_state = 'awaiting_file', completed_at = null,
        memo = 'Sent back at the upgrade: a 999/TA1 rejected the file that carried it, which is not a refusal; the next change file carries it again.'
    where delivery_state = 'rejected' and connection_method = 'edi'
      and exists (
        select 1 from edi_file_changes fc join edi_files f on f.id = fc.edi_file_id
        where fc.benefit_change_id = benefit_changes.id and f.status = 'rejected')`.execute(db);
  await sql`
    update enrollments set status = 'approved'
    where status = 'failed'
      and not exists (select 1 from benefit_changes bc where bc.enrollment_id = enrollments.id and bc.delivery_state = 'rejected')`.execute(db);
}

interface EntryRow {
  id: string;
  provider_id: string;
  employer_id: string;
  member_id: string;
  plan_id: string;
  effective_start: string | null;
  effective_end: string | null;
  volume_cents: number | null;
  employer_contribution_cents: number | null;
  member_contribution_cents: number | null;
  group_id: string;
  line_of_coverage: string;
  previous_plan_id: string | null;
  plan_end: string;
  /** The latest change of the entry (its add or change, or its removal) still on its way to the carrier, if any. */
  open_change_id: string | null;
}

async function backfillLedger(db: Kysely<unknown>): Promise<void> {
  const now = new Date().toISOString();
  const entries = (
    await sql<EntryRow>`
      select ep.id, ep.provider_id, e.employer_id, ep.member_id, ep.plan_id, ep.effective_start, ep.effective_end,
             ep.volume_cents, ep.employer_contribution_cents, ep.member_contribution_cents,
             p.group_id, p.line_of_coverage, p.previous_plan_id, p.effective_end as plan_end,
             (select max(bc.id) from benefit_changes bc
              where (bc.next_enrollment_plan_id = ep.id or (bc.previous_enrollment_plan_id = ep.id and bc.status = 'removed'))
                and bc.delivery_state in ('manual', 'queued', 'awaiting_file')) as open_change_id
      from enrolled_plans ep
      join enrollments e on e.id = ep.enrollment_id
      join plans p on p.id = ep.plan_id
      where e.status in ('approved', 'synced', 'failed')
        and not (e.status = 'failed' and exists (
          select 1 from benefit_changes bc where bc.next_enrollment_plan_id = ep.id and bc.delivery_state = 'rejected'))
        and (ep.effective_end is null or ep.effective_start is null or ep.effective_end >= ep.effective_start)
      order by ep.member_id, p.group_id, p.line_of_coverage, ep.effective_start, ep.id`.execute(db)
  ).rows;
  const latest = new Map<string, EntryRow>();
  for (const entry of entries) latest.set(`${entry.member_id}|${entry.group_id}|${entry.line_of_coverage}`, entry);
  let sequence = 0;
  const kept = [...latest.values()];
  for (let at = 0; at < kept.length; at += 200) {
    const batch = kept.slice(at, at + 200);
    const dependents = (
      await sql<{ enrolled_plan_id: string; dependent_id: string; volume_cents: number | null }>`
        select enrolled_plan_id, dependent_id, volume_cents from enrolled_dependents
        where enrolled_plan_id in (${sql.join(batch.map((entry) => entry.id))}) order by position, id`.execute(db)
    ).rows;
    for (const entry of batch) {
      const own = dependents.filter((d) => d.enrolled_plan_id === entry.id);
      const item = {
        enrolledPlanId: entry.id,
        planId: entry.plan_id,
        groupId: entry.group_id,
        previousPlanId: entry.previous_plan_id,
        lineOfCoverage: entry.line_of_coverage,
        effectiveStart: entry.effective_start,
        effectiveEnd: entry.effective_end,
        dependentIds: own.map((d) => d.dependent_id),
        volumeCents: entry.volume_cents === null ? null : Number(entry.volume_cents),
        dependentVolumeCents: own.map((d) => [d.dependent_id, d.volume_cents === null ? null : Number(d.volume_cents)]),
        employerContributionCents: entry.employer_contribution_cents === null ? null : Number(entry.employer_contribution_cents),
        memberContributionCents: entry.member_contribution_cents === null ? null : Number(entry.member_contribution_cents),
      };
      const toldEnd = entry.effective_end === null || entry.effective_end === entry.plan_end ? null : entry.effective_end;
      sequence += 1;
      await sql`
        insert into carrier_ledger (id, provider_id, employer_id, group_id, member_id, line_of_coverage, benefit_change_id, source,
          enrolled_plan_id, plan_id, coverage_start, coverage_end, item, told_at, refused_at, created_at)
        values (${`cl_0migration${String(sequence).padStart(10, '0')}`}, ${entry.provider_id}, ${entry.employer_id}, ${entry.group_id},
          ${entry.member_id}, ${entry.line_of_coverage}, ${entry.open_change_id}, ${entry.open_change_id === null ? 'migration' : 'benefit_change'},
          ${entry.id}, ${entry.plan_id}, ${entry.effective_start}, ${toldEnd}, ${JSON.stringify(item)},
          ${entry.open_change_id === null ? now : null}, ${null}, ${now})`.execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('alerts').execute();
  await db.schema.dropTable('carrier_ledger').execute();
}
