// The machine's ceiling, measured once per database at the start of a bench run: the bare-driver server of
// carriers-get (bench/ceiling.js: Fastify and the driver, nothing of the service) under the run's load, on
// 10,000 carriers. Machines differ by several times in speed, so every scenario's figures are also given
// relative to it (lib/report.js relativeFigures): a rate per 1,000 ceiling req/s, a duration times the
// ceiling in thousands of req/s. Figures so stated compare across machines; so do targets stated that way.

import { benchServers, getJson, startCeiling } from './bench.js';
import { createBenchDatabase } from './databases.js';
import { seedCarriers } from '../scenarios/carriers-get.js';

const CARRIERS = 10_000;

/** { [kind]: ceiling req/s } for every database kind of the run. */
export async function measureMachineCeilings({ service, settings, kinds, log }) {
  const ceilings = {};
  for (const kind of kinds) {
    const database = await createBenchDatabase(kind, service);
    try {
      const created = await new service.ApiKeyService(database.handle.db, service.systemClock).createKeyForProvider('bench-machine', { role: 'admin' });
      const rows = await seedCarriers(service, database.handle.db, created.provider, CARRIERS);
      await database.closeHandle();
      const ids = rows.map((row) => row.id);
      const measured = await benchServers(
        [
          {
            label: 'ceiling',
            start: () => startCeiling({ routes: ['carriers-get'], databaseEnv: database.ceilingEnv }),
            verify: async (url) => {
              const body = await getJson(`${url}/carriers/${ids[0]}`);
              if (body.id !== ids[0]) throw new Error('machine ceiling: the ceiling server answered another carrier');
            },
            path: () => `/carriers/${ids[Math.floor(Math.random() * ids.length)]}`,
            headers: {},
          },
        ],
        { settings: { ...settings, duration: Math.max(3, Math.round(settings.duration / 2)), rounds: 1 }, log: (line) => log(`machine [${kind}] ${line}`) },
      );
      ceilings[kind] = measured.ceiling.rps;
      log(`machine [${kind}]: ceiling ${measured.ceiling.rps} req/s (bare driver, GET /carriers/{id})`);
    } finally {
      await database.destroy();
    }
  }
  return ceilings;
}
