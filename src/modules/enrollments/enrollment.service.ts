/**
 * The enrollment engine, wired once: its units, each holding one job (docs/decisions.md "Enrollments"):
 *
 * - `drafts` (enrollment-drafts.ts): create, read, edit, submit (submission-check.ts: facts once, pure rules),
 *   reopen, cancel;
 * - `eoiDecisions` (eoi-decisions.ts): EOI decisions before and after approval;
 * - `approvals` (enrollment-approval.ts): pending -> approved, through the CoverageChangeRecorder
 *   (coverage/coverage-change-recorder.ts), which records what any change of coverage causes, then reaching
 *   forward to the member's later elections (later-elections.ts);
 * - `continuations` (coverage-continuation.ts): coverage that changes mid-way (age-outs, EOI raises, later
 *   elections amended by an earlier event), approved as stored (StoredApproval) without reaching forward;
 *
 * and elections are built and priced by election-builder.ts (facts loaded once, then a pure build). Routes call
 * the units; other modules call the methods below, which keep the names they know.
 */
import type { Kysely } from 'kysely';
import type { Transaction } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Scope } from '../../shared/tenancy.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import type { QualifyingEventRecorder } from '../cobra-events/cobra-event.service.ts';
import { CoverageChangeRecorder, type BenefitChangeRecorder } from '../coverage/coverage-change-recorder.ts';
import { CoverageContinuation } from './coverage-continuation.ts';
import { RehireReinstatement } from './rehire-reinstatement.ts';
import { EnrollmentApproval, StoredApproval } from './enrollment-approval.ts';
import { EnrollmentDrafts } from './enrollment-drafts.ts';
import type { EnrollmentResponse } from './enrollment.schemas.ts';
import { EoiDecisions } from './eoi-decisions.ts';
import { LaterElections } from './later-elections.ts';

export interface EnrollmentServiceOptions {
  db: Kysely<Database>;
  clock: Clock;
  /** Where every change of the engine hands its events and notifications. */
  commit: ChangeCommit;
  benefitChanges: BenefitChangeRecorder;
  qualifyingEvents: QualifyingEventRecorder;
}

export class EnrollmentService {
  readonly drafts: EnrollmentDrafts;
  readonly approvals: EnrollmentApproval;
  readonly continuations: CoverageContinuation;
  readonly eoiDecisions: EoiDecisions;
  readonly rehires: RehireReinstatement;

  constructor(options: EnrollmentServiceOptions) {
    const { db, clock, commit } = options;
    const recorder = new CoverageChangeRecorder({ benefitChanges: options.benefitChanges, qualifyingEvents: options.qualifyingEvents, commit });
    this.drafts = new EnrollmentDrafts({ db, clock, commit });
    const stored = new StoredApproval({ clock, recorder });
    this.continuations = new CoverageContinuation({ clock, approval: stored });
    const laterElections = new LaterElections({ clock, commit, continuation: this.continuations });
    this.approvals = new EnrollmentApproval({ db, stored, laterElections });
    this.eoiDecisions = new EoiDecisions({ db, clock, commit, continuation: this.continuations });
    this.rehires = new RehireReinstatement({ clock, continuation: this.continuations });
  }

  /** Passive open enrollment: creates an enrollment linked to `windowId` in the caller's transaction. */
  async createEnrollmentIn(...args: Parameters<EnrollmentDrafts['createIn']>): Promise<EnrollmentResponse> {
    return this.drafts.createIn(...args);
  }

  /** Passive open enrollment: save_and_submit in the caller's transaction. */
  async submitEnrollmentIn(...args: Parameters<EnrollmentDrafts['submitIn']>): Promise<EnrollmentResponse> {
    return this.drafts.submitIn(...args);
  }

  /** Passive open enrollment: approval in the caller's transaction (the job worker is woken after the commit by jobs/job-wake.ts). */
  async approveEnrollmentIn(trx: Transaction<Database>, scope: Scope, id: string): Promise<EnrollmentResponse> {
    return this.approvals.approveIn(trx, scope, id);
  }

  /** A rehire within 30 days, the member locked by the caller (RehireReinstatement.reinstateIn). */
  async reinstateIn(...args: Parameters<RehireReinstatement['reinstateIn']>): Promise<boolean> {
    return this.rehires.reinstateIn(...args);
  }

  /** The daily sweep's age-outs, the member locked by the caller (CoverageContinuation.endDependentCoverageIn). */
  async endDependentCoverageIn(...args: Parameters<CoverageContinuation['endDependentCoverageIn']>): Promise<boolean> {
    return this.continuations.endDependentCoverageIn(...args);
  }
}
