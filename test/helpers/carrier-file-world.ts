import { stringify } from 'csv-stringify/sync';
import { createMember } from './factories.ts';
import type { EnrollmentWorld } from './enrollment-world.ts';
import { createDependent } from './people-factories.ts';
import { ok } from './test-app.ts';

/** The columns of a carrier's census (docs/decisions.md "Carrier files"). */
export const CENSUS_HEADER = [
  'subscriber_id',
  'relationship',
  'line_of_coverage',
  'plan',
  'first_name',
  'last_name',
  'dob',
  'coverage_level',
  'coverage_start',
  'coverage_end',
];

/** A census of `rows` under the header, as CSV (a third-party writer). */
export function census(rows: string[][]): string {
  return stringify([CENSUS_HEADER, ...rows]);
}

/**
 * A member of the world held on Gold PPO (its manual group) since 2026-01-01 by the carrier's own report
 * (carrier_sync: told), with `dependents` on it.
 */
export async function heldMember(w: EnrollmentWorld, firstName: string, dependents: { relationship: string; first_name: string; dob: string }[] = []) {
  const member = await createMember(w.admin, {
    employer: w.employer.id,
    first_name: firstName,
    last_name: 'Stone',
    dob: '1980-01-01',
    hire_date: '2020-01-01',
  });
  const people = [];
  for (const dependent of dependents) {
    people.push(
      await createDependent(w.admin, {
        member: member.id,
        member_relationship: dependent.relationship,
        first_name: dependent.first_name,
        last_name: 'Stone',
        dob: dependent.dob,
      }),
    );
  }
  const enrollment = await ok(
    w.admin.post('/enrollments', {
      member: member.id,
      category: 'carrier_sync',
      effective_start: '2026-01-01',
      enrolled_plans: [{ plan: w.plans.medical.id, enrolled_dependents: people.map((person) => ({ dependent: person.id })) }],
    }),
    201,
  );
  return { member, people, enrollment };
}
