import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { transitionDelivery } from '../modules/benefit-changes/benefit-change.repository.ts';
import { lockEnrollmentStatus } from '../modules/enrollments/enrollment-lifecycle.ts';
import { lockEnrollmentById, lockMemberThenEnrollment, transitionEnrollment } from '../modules/enrollments/enrollment.repository.ts';
import { lockMemberById, lockMembersByIds } from '../modules/members/member.repository.ts';
import { transitionWindow } from '../modules/open-enrollment/open-enrollment-window.repository.ts';
import { lockPlansByIds } from '../modules/plans/plan.repository.ts';
import { lockProviderEndpoints } from '../modules/webhooks/webhook.repository.ts';
import type { Transaction } from './database.ts';
import { lockEmployerRow } from './references.ts';
import type { Database } from './schema.ts';
import { forNoKeyUpdate, forUpdate } from './scope.ts';

const scope = { providerId: 'prov_1', employerId: null };

// Never called: these functions exist for the typecheck (`npm run typecheck` covers test files), which fails
// if a line marked @ts-expect-error compiles, i.e. if a lock or transition accepted the database itself.
async function outsideATransaction(db: Kysely<Database>) {
  // @ts-expect-error -- a lock needs a transaction
  forUpdate(db, db.selectFrom('members').selectAll());
  // @ts-expect-error -- a lock needs a transaction
  forNoKeyUpdate(db, db.selectFrom('webhook_endpoints').selectAll());
  // @ts-expect-error -- a lock needs a transaction
  await lockMemberById(db, scope, 'member_1');
  // @ts-expect-error -- a lock needs a transaction
  await lockMembersByIds(db, ['member_1', 'member_2']);
  // @ts-expect-error -- a lock needs a transaction
  await lockEnrollmentById(db, scope, 'enrollment_1');
  // @ts-expect-error -- a lock needs a transaction
  await lockMemberThenEnrollment(db, scope, 'enrollment_1');
  // @ts-expect-error -- a lock needs a transaction
  await lockEnrollmentStatus(db, 'enrollment_1');
  // @ts-expect-error -- a lock needs a transaction
  await lockPlansByIds(db, 'prov_1', ['plan_1']);
  // @ts-expect-error -- a lock needs a transaction
  await lockEmployerRow(db, 'prov_1', 'employer_1');
  // @ts-expect-error -- a lock needs a transaction
  await lockProviderEndpoints(db, 'prov_1');
  // @ts-expect-error -- a transition is a conditional UPDATE inside the transaction that checked it
  await transitionEnrollment(db, 'enrollment_1', ['pending'], 'approved');
  // @ts-expect-error -- a transition is a conditional UPDATE inside the transaction that checked it
  await transitionDelivery(db, 'benefit_change_1', 'send', '2026-01-01T00:00:00.000Z');
  // @ts-expect-error -- a transition is a conditional UPDATE inside the transaction that checked it
  await transitionWindow(db, 'window_1', ['build_in_progress'], 'active');
}

// The same calls in a transaction compile: the errors above are about the executor, not the other arguments.
async function inATransaction(trx: Transaction<Database>) {
  forUpdate(trx, trx.selectFrom('members').selectAll());
  forNoKeyUpdate(trx, trx.selectFrom('webhook_endpoints').selectAll());
  await lockMemberById(trx, scope, 'member_1');
  await lockMembersByIds(trx, ['member_1', 'member_2']);
  await lockEnrollmentById(trx, scope, 'enrollment_1');
  await lockMemberThenEnrollment(trx, scope, 'enrollment_1');
  await lockEnrollmentStatus(trx, 'enrollment_1');
  await lockPlansByIds(trx, 'prov_1', ['plan_1']);
  await lockEmployerRow(trx, 'prov_1', 'employer_1');
  await lockProviderEndpoints(trx, 'prov_1');
  await transitionEnrollment(trx, 'enrollment_1', ['pending'], 'approved');
  await transitionDelivery(trx, 'benefit_change_1', 'send', '2026-01-01T00:00:00.000Z');
  await transitionWindow(trx, 'window_1', ['build_in_progress'], 'active');
}

describe('locks and transitions', () => {
  it('when called with the database instead of a transaction, then they do not typecheck (checked by tsc, not at run time)', () => {
    expect([outsideATransaction, inATransaction]).toHaveLength(2);
  });
});
