import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { toDateString } from '../../shared/dates.ts';
import { NotFound } from '../../shared/errors.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { money } from '../enrollments/enrollment.response.ts';
import { findMemberById } from '../members/member.repository.ts';
import type { MemberCoverage } from './coverage.schemas.ts';
import * as repository from './coverage.repository.ts';
import { payPeriodAmounts } from '../payroll/pay-period-rules.ts';
import { findPayScheduleOfMember } from '../payroll/pay-schedule.repository.ts';


/** `GET /members/{id}/coverage`: a member's coverage in force on a date. */
export class MemberCoverageService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;

  constructor(db: Kysely<Database>, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /**
   * The member's coverage on a date (today by default): one entry per line, from coverage in force
   * (coverage-in-force.ts) — the history approvals keep by ending replaced coverage the day before its
   * successor starts (coverage-history.ts).
   */
  async coverageOn(scope: Scope, memberId: string, date: string | undefined): Promise<MemberCoverage> {
    const member = await findMemberById(this.#db, scope, memberId);
    if (!member) throw new NotFound('member');
    const on = date ?? toDateString(this.#clock.now());
    const lines = await repository.findAllCoverageInForce(this.#db, member.id, on);
    const schedule = await findPayScheduleOfMember(this.#db, member);
    const dependents = await repository.findDependentIdsOfPlans(
      this.#db,
      lines.map((row) => row.id),
    );
    return {
      member: member.id,
      date: on,
      coverage: lines.map((row) => ({
        line_of_coverage: row.line_of_coverage,
        plan: row.plan_id,
        enrolled_plan: row.id,
        enrollment: row.enrollment_id,
        effective_start: row.effective_start,
        effective_end: row.effective_end,
        dependents: dependents.get(row.id) ?? [],
        volume: money(row.volume_cents),
        premium: money(row.premium_cents),
        employer_contribution: money(row.employer_contribution_cents),
        member_contribution: money(row.member_contribution_cents),
        pay_period: payPeriodAmounts(schedule, row.member_contribution_cents, row.employer_contribution_cents),
      })),
    };
  }
}
