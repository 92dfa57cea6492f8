/**
 * `benefits demo`: a small, realistic sandbox in the configured database, made through the API itself (the app's
 * routes and services, injected requests: no socket), so that a new user sees the service at work in a minute.
 * Everything belongs to the provider "demo", apart from any other tenant.
 */
import type { Config } from '../config.ts';
import { describeDatabase } from '../db/database.ts';
import { ApiKeyService } from '../modules/api-keys/api-key.service.ts';
import { systemClock } from '../shared/clock.ts';
import { AppError } from '../shared/errors.ts';
import { openCheckedDatabase } from '../start/checked-database.ts';
import { asStartError, openStartDatabase } from '../start/start-errors.ts';
import { DEMO_EMPLOYER, DEMO_PEOPLE, demoPlans, demoWindow } from './demo-data.ts';

export const DEMO_PROVIDER = 'demo';

type Output = (text: string) => void;
type Body = Record<string, unknown>;
interface Created {
  id: string;
}

export async function loadDemo(config: Config, out: Output): Promise<void> {
  const description = describeDatabase(config.databaseUrl);
  const database = openStartDatabase(config.databaseUrl);
  try {
    const encryptionKey = await openCheckedDatabase(config, database, systemClock);
    const keys = new ApiKeyService(database.db, systemClock);
    const existing = (await keys.listProviders()).find((provider) => provider.name === DEMO_PROVIDER);
    if (existing) {
      throw new AppError(
        'invalid_state',
        `The demo sandbox is loaded already (provider "${DEMO_PROVIDER}", ${existing.id}, since ${existing.created_at}): make a key for it with "benefits api-keys create --provider ${DEMO_PROVIDER} --role admin".`,
      );
    }
    const key = await keys.createKeyForProvider(DEMO_PROVIDER, { role: 'admin', name: 'demo key' }, true);
    const { buildApp } = await import('../app.ts');
    const app = await buildApp({ config: { ...config, logLevel: 'silent' }, db: database.db, clock: systemClock, encryptionKey });
    try {
      const post = async <T extends Created>(path: string, body?: Body): Promise<T> => {
        const response = await app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${key.key}` }, ...(body ? { payload: body } : {}) });
        if (response.statusCode >= 300) {
          // A bug, or a database that failed meanwhile: the sandbox is partly loaded, and says so.
          throw new AppError(
            'internal_error',
            `the demo stopped part-way (POST ${path} answered ${response.statusCode}: ${response.body}); provider "${DEMO_PROVIDER}" holds what was made`,
          );
        }
        return response.json<T>();
      };
      const today = systemClock.now().toISOString().slice(0, 10);
      const employer = await post('/employers', DEMO_EMPLOYER);
      const carrier = await post('/carriers', { legal_name: 'Prairie Mutual Health Insurance Company', trade_name: 'Prairie Mutual' });
      const group = await post('/groups', { employer: employer.id, carrier: carrier.id, group_number: 'PMH-204518' });
      const plans: (Created & { plan_name: string; line_of_coverage: string })[] = [];
      for (const plan of demoPlans(today)) {
        const created = await post<Created & { plan_name: string; line_of_coverage: string }>('/plans', { ...plan, group: group.id });
        await post('/plan_configurations', { plan: created.id });
        plans.push(created);
      }
      let dependents = 0;
      const members: string[] = [];
      for (const person of DEMO_PEOPLE) {
        const { dependents: family, ...fields } = person;
        const member = await post('/members', { ...fields, employer: employer.id });
        members.push(`${person.first_name} ${person.last_name} (${member.id})`);
        for (const dependent of family) {
          await post('/dependents', { ...dependent, member: member.id });
          dependents += 1;
        }
      }
      const window = await post<Created & { start_date: string; end_date: string }>('/open_enrollment_windows', {
        ...demoWindow(
          today,
          plans.map((plan) => plan.id),
        ),
        employer: employer.id,
      });
      await post(`/open_enrollment_windows/${window.id}/activate`);
      out(`Loaded the demo sandbox into ${database.description}, as provider "${DEMO_PROVIDER}" (${key.provider}):`);
      out(`  employer    Lakeside Dental Group LLC (${employer.id}); carrier Prairie Mutual (${carrier.id}), group PMH-204518 (${group.id})`);
      for (const plan of plans) out(`  plan        ${plan.line_of_coverage}: ${plan.plan_name} (${plan.id})`);
      out(`  members     ${members.join(', ')}; ${dependents} dependents`);
      out(`  enrollment  open enrollment window ${window.id}, active from ${window.start_date} to ${window.end_date}`);
      out(`Admin API key of "${DEMO_PROVIDER}" (shown once; store it now): ${key.key}`);
      out(`Try it: run "benefits serve", then: curl -H "Authorization: Bearer ${key.key}" http://localhost:${config.port}/members`);
    } finally {
      await app.close();
    }
  } catch (error) {
    throw asStartError(error, description);
  } finally {
    await database.close();
  }
}
