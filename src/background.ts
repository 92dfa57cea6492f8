/**
 * The services of work that runs without a request (the daily sweep, and the core every composition shares),
 * apart from the rest of `services.ts`: `benefits sweep` loads only this, not Fastify, the schemas, every route
 * and every other service (about 30 MB less resident memory; bench/README.md, "Server memory"). The server
 * builds these once, inside `buildServices`, and shares them with its routes, job handlers and schedulers.
 */
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.ts';
import type { Wakeable } from './jobs/job-wake.ts';
import { BenefitChangeService } from './modules/benefit-changes/benefit-change.service.ts';
import { ChangeCommit } from './modules/change-commit/change-commit.ts';
import { CobraEventService } from './modules/cobra-events/cobra-event.service.ts';
import { RelationshipEnds } from './modules/coverage/relationship-ends.ts';
import { EligibilityLosses } from './modules/coverage/eligibility-loss.service.ts';
import { CoverageTerminations } from './modules/coverage/termination.service.ts';
import { DailySweep, type SweepOptions } from './modules/daily-sweep/sweep.service.ts';
import { EnrollmentService } from './modules/enrollments/enrollment.service.ts';
import { EventLog } from './modules/events/event-log.ts';
import { Notifier } from './modules/notifications/notification.service.ts';
import { OpenEnrollmentWindowService } from './modules/open-enrollment/open-enrollment-window.service.ts';
import { webhookFanOut } from './modules/webhooks/webhook-fan-out.ts';
import type { Clock } from './shared/clock.ts';

export interface BackgroundDependencies {
  db: Kysely<Database>;
  clock: Clock;
  /** The job worker, woken by the sweep after each rule that enqueued jobs; absent where none runs (`benefits sweep`, tests). */
  worker?: Wakeable | undefined;
}

/** The core of a composition: how changes commit their side effects, the enrollment engine and what it drives. */
export interface BackgroundServices {
  db: Kysely<Database>;
  clock: Clock;
  /** Where every change's events go, with webhook delivery subscribed (services record through `changes`). */
  eventLog: EventLog;
  /** The one hand-over of a change's events, notifications and jobs (change-commit/change-commit.ts). */
  changes: ChangeCommit;
  benefitChanges: BenefitChangeService;
  cobraEvents: CobraEventService;
  enrollments: EnrollmentService;
  terminations: CoverageTerminations;
  /** A divorce or dissolution ending the former partner's coverage (PATCH /dependents/{id} and the sweep). */
  relationshipEnds: RelationshipEnds;
  /** Losses of eligibility by hours or employment status (coverage/eligibility-loss.service.ts). */
  eligibility: EligibilityLosses;
  windows: OpenEnrollmentWindowService;
  sweep: DailySweep;
}

/** Builds the core once; `sweep` says how the daily sweep cuts its work (production's defaults when absent). */
export function buildBackgroundServices(deps: BackgroundDependencies, sweep: SweepOptions = {}): BackgroundServices {
  const { db, clock } = deps;
  const eventLog = buildEventLog({ clock });
  const changes = buildChangeCommit({ clock }, eventLog);
  const benefitChanges = new BenefitChangeService(db, clock, changes);
  const cobraEvents = new CobraEventService(db, clock, changes);
  // No `jobs` for the engine: whoever runs its work wakes the worker after it (jobs/job-wake.ts).
  const enrollments = new EnrollmentService({ db, clock, commit: changes, benefitChanges, qualifyingEvents: cobraEvents });
  const terminations = new CoverageTerminations({ db, clock, commit: changes, benefitChanges, qualifyingEvents: cobraEvents });
  const eligibility = new EligibilityLosses({ db, clock, commit: changes, terminations });
  const windows = new OpenEnrollmentWindowService({ db, clock, changes, enrollments });
  const relationshipEnds = new RelationshipEnds({ db, coverage: enrollments });
  return {
    db,
    clock,
    eventLog,
    changes,
    benefitChanges,
    cobraEvents,
    enrollments,
    terminations,
    relationshipEnds,
    eligibility,
    windows,
    sweep: new DailySweep({ ...sweep, db, changes, windows, coverage: enrollments, terminations, relationshipEnds, eligibility, worker: deps.worker }),
  };
}

/** The daily sweep alone (`benefits sweep`, tests); the server's comes with its services (`buildServices`). */
export function buildDailySweep(deps: BackgroundDependencies, options?: SweepOptions): DailySweep {
  return buildBackgroundServices(deps, options).sweep;
}

/** An event log with webhook delivery subscribed to it: one per composition (they share the database, not the instance). */
export function buildEventLog({ clock }: { clock: Clock }): EventLog {
  const events = new EventLog(clock);
  events.subscribe(webhookFanOut(clock));
  return events;
}

/** How changes hand over their side effects into `events` (a composition's own event log when absent). */
export function buildChangeCommit({ clock }: { clock: Clock }, events: EventLog = buildEventLog({ clock })): ChangeCommit {
  return new ChangeCommit({ clock, events, notifier: new Notifier(clock) });
}
