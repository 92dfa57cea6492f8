/**
 * The services of work that runs without a request (the daily sweep, and the pieces the app and the job
 * handlers share with it), built apart from the HTTP app in `app.ts`: `benefits sweep` loads only this, not
 * Fastify, the schemas and every route (about 30 MB less resident memory; bench/README.md, "Server memory").
 */
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.ts';
import { BenefitChangeService } from './modules/benefit-changes/benefit-change.service.ts';
import { ChangeCommit } from './modules/change-commit/change-commit.ts';
import { CobraEventService } from './modules/cobra-events/cobra-event.service.ts';
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
  jobs?: { wake(): void };
}

/**
 * The daily sweep with the services it uses (the server's scheduler, `benefits sweep` and tests build it
 * here, as the app builds its routes' services).
 */
export function buildDailySweep(deps: BackgroundDependencies, options?: SweepOptions): DailySweep {
  const events = buildEventLog(deps);
  const { notifier, enrollments, windows } = buildOpenEnrollment({ ...deps, events });
  return new DailySweep(deps.db, notifier, windows, enrollments, buildTerminations(deps.db, deps.clock, events), options);
}

/**
 * The event log every service of one composition records into, with webhook delivery subscribed to it (the
 * app, the job handlers and the daily sweep each build one; they share the database, not the instance).
 */
export function buildEventLog({ clock }: { clock: Clock }): EventLog {
  const events = new EventLog(clock);
  events.subscribe(webhookFanOut(clock));
  return events;
}

export function buildOpenEnrollment({ db, clock, jobs, events }: BackgroundDependencies & { events: EventLog }) {
  const notifier = new Notifier(clock, events);
  const enrollments = new EnrollmentService({
    db,
    clock,
    commit: new ChangeCommit({ clock, events, notifier }),
    benefitChanges: new BenefitChangeService(db, clock, events),
    qualifyingEvents: new CobraEventService(db, clock),
    jobs,
  });
  return { notifier, enrollments, windows: new OpenEnrollmentWindowService(db, clock, notifier, events, enrollments) };
}

/** What terminations do to coverage (the daily sweep and member updates use it). */
export function buildTerminations(db: Kysely<Database>, clock: Clock, events: EventLog): CoverageTerminations {
  return new CoverageTerminations({
    db,
    clock,
    commit: new ChangeCommit({ clock, events, notifier: new Notifier(clock, events) }),
    benefitChanges: new BenefitChangeService(db, clock, events),
    qualifyingEvents: new CobraEventService(db, clock),
  });
}
