import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { PermanentJobError } from '../../jobs/job-queue.ts';
import type { JobHandler } from '../../jobs/job-worker.ts';
import type { Clock } from '../../shared/clock.ts';
import { parseMetadata } from '../../shared/metadata.ts';
import { findChangeForDelivery, transitionDelivery, type ChangeForDelivery } from '../benefit-changes/benefit-change.repository.ts';
import { DELIVERY_TRANSITIONS } from '../benefit-changes/benefit-change-delivery.ts';
import { MEMO_MAX_LENGTH } from '../benefit-changes/benefit-change.schemas.ts';
import { SEND_BENEFIT_CHANGE_JOB, refusalAlerts, rollUpEnrollment } from '../benefit-changes/benefit-change.service.ts';
import type { ChangeKind } from '../benefit-changes/benefit-change.table.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import type { CarrierAdapter, CarrierChange } from './carrier-adapter.ts';

export interface CarrierJobDependencies {
  db: Kysely<Database>;
  clock: Clock;
  changes: ChangeCommit;
  adapter: CarrierAdapter;
}

/** The job handlers of carrier connections, by job kind, for the worker's registry. */
export function carrierJobHandlers(deps: CarrierJobDependencies): Record<string, JobHandler> {
  return { [SEND_BENEFIT_CHANGE_JOB]: (payload) => sendBenefitChange(deps, payload) };
}

/**
 * Hands one change of an `api` group to the carrier adapter and records the outcome. Jobs run at least once,
 * so a change already settled is left alone, and the outcome is written only over `queued`/`sent`. The adapter
 * is called outside any transaction (no lock is held while a carrier answers); a throw propagates so that the
 * worker retries.
 */
async function sendBenefitChange({ db, clock, changes, adapter }: CarrierJobDependencies, payload: Record<string, unknown>): Promise<void> {
  const id = payload.benefit_change;
  if (typeof id !== 'string') throw new PermanentJobError('The payload names no benefit_change.');
  const found = await findChangeForDelivery(db, id);
  if (!found) throw new PermanentJobError(`No benefit change ${id}.`);
  const { change } = found;
  if (change.delivery_state === 'completed' || change.delivery_state === 'rejected') return;
  if (change.delivery_state !== 'queued' && change.delivery_state !== 'sent') {
    throw new PermanentJobError(`Benefit change ${id} is ${change.delivery_state}, not waiting for the carrier API.`);
  }

  await db.transaction().execute(async (trx) => {
    const sent = { delivery_state: DELIVERY_TRANSITIONS.send.to };
    if (await transitionDelivery(trx, id, 'send', clock.now().toISOString()))
      await changes.commit(trx, { events: [eventOf('benefit_change', 'sent', { ...change, ...sent })] });
  });
  const outcome = await adapter.send(toCarrierChange(found));

  await db.transaction().execute(async (trx) => {
    const [action, fields] = outcome.accepted
      ? (['carrier_accept', { completed_at: clock.now().toISOString(), memo: `Accepted by carrier: ${outcome.reference}`.slice(0, MEMO_MAX_LENGTH) }] as const)
      : (['carrier_reject', { memo: outcome.reason.slice(0, MEMO_MAX_LENGTH) }] as const);
    const settled = { ...change, ...fields, delivery_state: DELIVERY_TRANSITIONS[action].to };
    if (!(await transitionDelivery(trx, id, action, clock.now().toISOString(), fields))) return;
    const events = await rollUpEnrollment(trx, change.enrollment_id, [eventOf('benefit_change', settled.delivery_state, settled)]);
    // The carrier API's final refusal is a business refusal: the member and the employer are told, as for one an admin records.
    await changes.commit(trx, { events, alerts: outcome.accepted ? [] : refusalAlerts(settled) });
  });
}

function toCarrierChange({ change, carrierId, groupNumber, groupMetadata }: ChangeForDelivery): CarrierChange {
  return {
    benefitChange: change.id,
    enrollment: change.enrollment_id,
    member: change.member_id,
    lineOfCoverage: change.line_of_coverage,
    status: change.status,
    changes: JSON.parse(change.changes) as ChangeKind[],
    coverageStart: change.coverage_start,
    coverageEnd: change.coverage_end,
    carrier: carrierId,
    groupNumber,
    groupMetadata: parseMetadata(groupMetadata),
  };
}
