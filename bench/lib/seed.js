// Seeding helpers shared by scenarios: batched multi-row inserts through the service's own Kysely handle,
// and a small deterministic random source so that every run seeds the same shape of data.

/**
 * Inserts rows into a table through Kysely: multi-row inserts of `rowsPerInsert` rows, `rowsPerTransaction`
 * rows per transaction. Every row must have the same keys.
 */
export async function insertRows(db, table, rows, { rowsPerInsert = 1000, rowsPerTransaction = 10_000 } = {}) {
  for (let start = 0; start < rows.length; start += rowsPerTransaction) {
    const chunk = rows.slice(start, start + rowsPerTransaction);
    await db.transaction().execute(async (trx) => {
      for (let offset = 0; offset < chunk.length; offset += rowsPerInsert) {
        await trx
          .insertInto(table)
          .values(chunk.slice(offset, offset + rowsPerInsert))
          .execute();
      }
    });
  }
}

/** mulberry32: a seeded PRNG returning floats in [0, 1). Deterministic data, not cryptography. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A whole number from the environment, at least `minimum`; the fallback when unset. */
export function wholeNumberFrom(env, name, fallback, minimum = 1) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) throw new Error(`${name} must be a whole number >= ${minimum} (got "${raw}")`);
  return value;
}

/** Seconds since `started` (a Date.now() value), to one decimal. */
export function secondsSince(started) {
  return Math.round((Date.now() - started) / 100) / 10;
}

/** The coverage columns of a seeded enrolled plan or dependent: no volume, no EOI, no provider, no card. */
export const UNCHANGED_COVERAGE_COLUMNS = {
  volume_cents: null,
  requested_volume_cents: null,
  volume_approved_at: null,
  eoi_dismissed_at: null,
  eoi_status: 'not_required',
  primary_care_provider: null,
  member_id_card_id: null,
};

/**
 * One employer ("Scale Employer Inc.") with one carrier ("Scale Health") and one group of that carrier on
 * `connectionMethod`; returns their ids. `id(kind)` makes a record id.
 */
export async function seedEmployerGroup(db, id, { providerId, groupNumber, connectionMethod, createdAt }) {
  const employer = id('employer');
  await db
    .insertInto('employers')
    .values(employerRow({ id: employer, providerId, legalName: 'Scale Employer Inc.', createdAt }))
    .execute();
  const carrier = id('carrier');
  await db
    .insertInto('carriers')
    .values({ id: carrier, provider_id: providerId, legal_name: 'Scale Health', trade_name: null, logo_url: null, created_at: createdAt })
    .execute();
  const group = id('group');
  await db
    .insertInto('carrier_groups')
    .values({
      id: group,
      provider_id: providerId,
      employer_id: employer,
      carrier_id: carrier,
      group_number: groupNumber,
      connection_method: connectionMethod,
      metadata: '{}',
      created_at: createdAt,
    })
    .execute();
  return { employer, carrier, group };
}

/** A plans row with every column filled: no rates, no volume rules. */
export function planRow({ id, providerId, employerId, groupId, line, name, start, end, createdAt }) {
  return {
    id,
    provider_id: providerId,
    employer_id: employerId,
    group_id: groupId,
    plan_name: name,
    plan_type: null,
    line_of_coverage: line,
    effective_start: start,
    effective_end: end,
    premium_type: null,
    composite_rates: null,
    age_rates: null,
    guaranteed_issue_volume_cents: null,
    requires_primary_care_provider: false,
    metadata: '{}',
    created_at: createdAt,
  };
}

const ADDRESS = JSON.stringify({ line1: '1 Main St', city: 'Springfield', state: 'IL', zip_code: '62701' });

/** An employers row with every column filled. */
export function employerRow({ id, providerId, legalName, createdAt }) {
  return {
    id,
    provider_id: providerId,
    legal_name: legalName,
    trade_name: null,
    federal_ein: null,
    email: null,
    phone_number: null,
    address: ADDRESS,
    external_id: null,
    metadata: '{}',
    created_at: createdAt,
  };
}

/** A members row with every column filled: member number `i` of the employer, hired 2024-01-15. */
export function memberRow({ id, providerId, employerId, i, createdAt, address = ADDRESS, lastName = `Last${i}`, terminationDate = null }) {
  return {
    id,
    provider_id: providerId,
    employer_id: employerId,
    first_name: `First${i}`,
    last_name: lastName,
    dob: '1980-05-17',
    ssn_encrypted: null,
    ssn_last_four: null,
    email: `member${i}@example.com`,
    phone_number: null,
    address,
    hire_date: '2024-01-15',
    termination_date: terminationDate,
    biological_sex: null,
    employment_status: null,
    hours_worked: null,
    pay_frequency: null,
    payroll_provider_external_id: null,
    job_title: null,
    business_unit_id: null,
    metadata: '{}',
    created_at: createdAt,
  };
}

/**
 * `count` members of the employer, each with an approved enrollment of 2026 electing `planId` for the whole year
 * at the given premium split (cents), inserted in bulk: the covered population the payroll and premium-bill
 * scenarios read. Returns the members' ids in insertion order.
 */
export async function insertCoveredMembers(db, { count, providerId, employerId, planId, id, createdAt, premiumCents, employerCents }) {
  const members = [];
  const enrollments = [];
  const enrolledPlans = [];
  for (let i = 0; i < count; i++) {
    const member = memberRow({ id: id('member'), providerId, employerId, i, createdAt });
    members.push(member);
    const enrollment = {
      id: id('enrollment'),
      provider_id: providerId,
      employer_id: employerId,
      member_id: member.id,
      category: 'open_enrollment',
      status: 'approved',
      effective_start: '2026-01-01',
      effective_end: null,
      reason: 'open_enrollment',
      change_date: null,
      qualifying_life_event_documents: '[]',
      metadata: '{}',
      submitted_at: createdAt,
      approved_at: createdAt,
      open_enrollment_window_id: null,
      created_at: createdAt,
    };
    enrollments.push(enrollment);
    enrolledPlans.push({
      id: id('enrolled_plan'),
      provider_id: providerId,
      enrollment_id: enrollment.id,
      member_id: member.id,
      plan_id: planId,
      position: 0,
      effective_start: '2026-01-01',
      effective_end: '2026-12-31',
      premium_cents: premiumCents,
      employer_contribution_cents: employerCents,
      member_contribution_cents: premiumCents - employerCents,
      payroll_provider_external_id: null,
      ...UNCHANGED_COVERAGE_COLUMNS,
      created_at: createdAt,
    });
  }
  await insertRows(db, 'members', members, { rowsPerInsert: 400 });
  await insertRows(db, 'enrollments', enrollments, { rowsPerInsert: 500 });
  await insertRows(db, 'enrolled_plans', enrolledPlans, { rowsPerInsert: 400 });
  return members.map((member) => member.id);
}

/** An employer with a manual group (`groupNumber`) and its 2026 medical plan, inserted: the payroll and premium-bill scenarios' start. */
export async function insertMedicalEmployer(db, id, { providerId, groupNumber, createdAt }) {
  const { employer, group } = await seedEmployerGroup(db, id, { providerId, groupNumber, connectionMethod: 'manual', createdAt });
  const medical = planRow({
    id: id('plan'),
    providerId,
    employerId: employer,
    groupId: group,
    line: 'medical',
    name: 'Scale medical',
    start: '2026-01-01',
    end: '2026-12-31',
    createdAt,
  });
  await insertRows(db, 'plans', [medical]);
  return { employer, group, medical };
}
