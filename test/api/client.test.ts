import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBenefitsClient, type BenefitsClient, type Schemas } from '../../src/client/index.ts';
import { createTestApp, type TestContext } from '../helpers/test-app.ts';

// The typed client (benefits-enrollment-service/client) against the real server: one enrollment from the
// employer to the approval, every call typed from the OpenAPI document. The typecheck compiles this file.

let t: TestContext;
let api: BenefitsClient;
beforeAll(async () => {
  t = await createTestApp();
  const key = await t.admin.post('/api_keys', { role: 'admin', name: 'typed client' });
  api = createBenefitsClient({ baseUrl: `${t.baseUrl}/`, apiKey: key.body.key as string });
});
afterAll(async () => {
  await t.close();
});

/** The data of a successful answer; the error body otherwise fails the test. */
function data<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data === undefined) throw new Error(`${answer.response.status}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

describe('typed client', () => {
  it('when a member is enrolled through it, then every step answers the typed records and the approval prices the election', async () => {
    const employer = data(
      await api.POST('/employers', { body: { legal_name: 'Typed Co', address: { line1: '1 Main St', city: 'Springfield', state: 'IL', zip_code: '62701' } } }),
    );
    const carrier = data(await api.POST('/carriers', { body: { legal_name: 'Typed Health' } }));
    const group = data(await api.POST('/groups', { body: { employer: employer.id, carrier: carrier.id, group_number: 'T-1', connection_method: 'manual' } }));
    const plan = data(
      await api.POST('/plans', {
        body: {
          group: group.id,
          plan_name: 'Typed PPO',
          line_of_coverage: 'medical',
          effective_start: '2026-01-01',
          effective_end: '2026-12-31',
          premium_type: 'composite',
          composite_rates: { member: '500.00', member_spouse: '900.00', member_child: '800.00', member_children: '1000.00', member_family: '1400.00' },
        },
      }),
    );
    data(await api.POST('/plan_configurations', { body: { plan: plan.id } }));
    const member = data(
      await api.POST('/members', {
        body: {
          employer: employer.id,
          first_name: 'Ty',
          last_name: 'Ped',
          dob: '1980-01-01',
          hire_date: '2025-01-01',
          address: { line1: '2 Main St', city: 'Springfield', state: 'IL', zip_code: '62701' },
        },
      }),
    );
    const enrollment: Schemas['Enrollment'] = data(
      await api.POST('/enrollments', {
        body: {
          member: member.id,
          category: 'qle',
          reason: 'employment_change',
          change_date: '2026-02-27',
          effective_start: '2026-04-01',
          enrolled_plans: [{ plan: plan.id }],
        },
      }),
    );
    expect(enrollment.enrolled_plans[0]!.premium).toBe('500.00');
    data(await api.POST('/enrollments/{public_id}/save_and_submit', { params: { path: { public_id: enrollment.id } } }));
    const approved = data(await api.POST('/enrollments/{public_id}/approve', { params: { path: { public_id: enrollment.id } } }));
    expect(approved.status).toBe('approved');

    const coverage = data(await api.GET('/members/{public_id}/coverage', { params: { path: { public_id: member.id }, query: { date: '2026-04-01' } } }));
    expect(coverage.coverage).toMatchObject([{ line_of_coverage: 'medical', plan: plan.id }]);
    const listed = data(await api.GET('/enrollments', { params: { query: { member: member.id } } }));
    expect(listed.results.map((row) => row.id)).toEqual([enrollment.id]);
  });

  it('when the server refuses, then the typed error body comes back with its status', async () => {
    const answer = await api.GET('/carriers/{public_id}', { params: { path: { public_id: 'carr_00000000000000000000' } } });
    expect(answer.response.status).toBe(404);
    const error: Schemas['ErrorBody'] | undefined = answer.error;
    expect(error?.type).toBe('not_found');
  });

  it('when the generated types are compared with the OpenAPI document of these sources, then they are in step (run npm run build if not)', () => {
    const before = readFileSync(new URL('../../src/client/api.ts', import.meta.url), 'utf8');
    // Throws (exit 1) when the build's types differ from what the sources give now; --check writes nothing.
    execFileSync(process.execPath, ['scripts/client-types.mjs', '--check'], { cwd: new URL('../..', import.meta.url), stdio: 'pipe' });
    expect(readFileSync(new URL('../../src/client/api.ts', import.meta.url), 'utf8')).toBe(before);
  });
});
