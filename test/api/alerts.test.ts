import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewAlert } from '../../src/modules/alerts/alert.service.ts';
import { createEmployer } from '../helpers/factories.ts';
import { createEmployerWithKey, newProviderAdmin } from '../helpers/more-factories.ts';
import { createTestApp, ok, type TestContext } from '../helpers/test-app.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function providerOf(employerId: string): Promise<string> {
  return (await t.database.db.selectFrom('employers').select('provider_id').where('id', '=', employerId).executeTakeFirstOrThrow()).provider_id;
}

/** Alerts as a change hands them over: through ChangeCommit, in a transaction of their own. */
async function raise(alerts: NewAlert[]): Promise<void> {
  await t.database.db.transaction().execute(async (trx) => {
    await t.services.changes.commit(trx, { alerts });
  });
}

const alert = (overrides: Partial<NewAlert> & Pick<NewAlert, 'providerId' | 'employerId' | 'key'>): NewAlert => ({
  audience: 'admin',
  kind: 'edi_unmapped_line',
  relatedObjectType: 'benefit_change',
  relatedObjectId: 'bc_1',
  memberId: null,
  message: 'The life line has no 834 code in the profile of group grp_1: map it (line_of_coverage_codes) or complete the change by hand.',
  payload: { group: 'grp_1' },
  ...overrides,
});

describe('GET /alerts', () => {
  it("when alerts are raised, then each is recorded once by its key, with one alert.created event; admins see all, employer keys their employer's non-admin ones, other tenants none", async () => {
    const { employer, client: employerKey } = await createEmployerWithKey(t);
    const providerId = await providerOf(employer.id);
    const other = await createEmployer(t.admin, { legal_name: 'Other Employer Inc' });
    await raise([
      alert({ providerId, employerId: employer.id, key: 'edi_unmapped_line:bc_1' }),
      alert({
        providerId,
        employerId: employer.id,
        key: 'benefit_change_refused:bc_2:employer',
        audience: 'employer',
        kind: 'benefit_change_refused',
        relatedObjectId: 'bc_2',
        message: 'The carrier refused a benefit change.',
      }),
      alert({
        providerId,
        employerId: other.id,
        key: 'benefit_change_refused:bc_3:employer',
        audience: 'employer',
        kind: 'benefit_change_refused',
        relatedObjectId: 'bc_3',
      }),
    ]);
    // Seen again: nothing new.
    await raise([alert({ providerId, employerId: employer.id, key: 'edi_unmapped_line:bc_1' })]);

    const asAdmin = await ok(t.admin.get('/alerts'));
    const mine = asAdmin.results.filter((row: { related_object_id: string }) => ['bc_1', 'bc_2', 'bc_3'].includes(row.related_object_id));
    expect(mine.map((row: { kind: string; audience: string; related_object_id: string }) => [row.kind, row.audience, row.related_object_id]).sort()).toEqual([
      ['benefit_change_refused', 'employer', 'bc_2'],
      ['benefit_change_refused', 'employer', 'bc_3'],
      ['edi_unmapped_line', 'admin', 'bc_1'],
    ]);
    const onlyAdmin = await ok(t.admin.get('/alerts?audience=admin&related_object_id=bc_1'));
    expect(onlyAdmin.results).toHaveLength(1);
    expect(onlyAdmin.results[0]).toMatchObject({ kind: 'edi_unmapped_line', employer: employer.id, member: null, payload: { group: 'grp_1' } });

    const asEmployer = await ok(employerKey.get('/alerts'));
    expect(asEmployer.results.map((row: { related_object_id: string }) => row.related_object_id)).toEqual(['bc_2']);
    expect((await ok(employerKey.get('/alerts?audience=admin'))).results).toEqual([]);

    const stranger = await newProviderAdmin(t, 'alerts-stranger');
    expect((await ok(stranger.get('/alerts'))).results).toEqual([]);

    const events = await ok(t.admin.get('/events?type=alert.created&page_size=100'));
    const ours = events.results.filter((event: { data: { related_object_id: string } }) => ['bc_1', 'bc_2'].includes(event.data.related_object_id));
    expect(ours).toHaveLength(2);
    // Ids and states only: never the message.
    expect(JSON.stringify(ours)).not.toContain('line_of_coverage_codes');
  });

  it('when the query is not understood, then a 400 names the parameter', async () => {
    const response = await t.admin.get('/alerts?kind=nope');
    expect(response.status).toBe(400);
  });
});
