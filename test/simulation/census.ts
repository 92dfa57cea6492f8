import { stringify } from 'csv-stringify/sync';
import type { Actions } from './life-events.ts';
import type { SimEmployer, SimMember } from './world.ts';

// HR's roster, pushed as a census file (docs/decisions.md "Census imports") on a few days of the year: every
// employed member by employee id, some with a new address (an update the carriers must hear of), and some left
// out, as a payroll export that missed them would. Nobody left out may lose anything by it: the simulation
// reads their coverage and record before the upload and after the apply, and any difference is a violation of
// `census_absence`.

/** The days each employer uploads its census, and the share of employed members a file leaves out or moves. */
export const CENSUS = { days: ['2026-03-02', '2026-09-01'], leftOut: 0.03, moved: 0.02 } as const;

const HEADER = ['employee_id', 'relationship', 'address_line1', 'city', 'state', 'zip_code'];
const NEW_ADDRESS = ['200 Oak Avenue', 'Springfield', 'IL', '62704'];

interface CensusImport {
  id: string;
  status: string;
  summary: { create: number; update: number; unchanged: number; error: number; missing: number };
}

/** One employer's census day: the file uploaded, checked (the job run as the server's worker would), reviewed and applied. */
export async function censusDay(a: Actions, day: string, world: SimEmployer, members: readonly SimMember[], runDueJobs: () => Promise<void>): Promise<void> {
  const { steps, random } = a;
  const employed = members.filter((member) => member.employer === world && (member.state === 'active' || member.state === 'leaving'));
  const leftOut: SimMember[] = [];
  const rows: string[][] = [];
  let moved = 0;
  for (const member of employed) {
    const draw = random.next();
    if (draw < CENSUS.leftOut) {
      leftOut.push(member);
      continue;
    }
    // Blank cells are "not given": the row changes nothing unless it moves the member.
    const move = draw < CENSUS.leftOut + CENSUS.moved;
    if (move) moved++;
    rows.push([member.employeeId, 'employee', ...(move ? NEW_ADDRESS : ['', '', '', ''])]);
  }
  const before = await Promise.all(leftOut.map((member) => snapshot(a, member, day)));
  const created = await steps.expect<CensusImport>(
    'census upload',
    a.admin.post(`/census_imports?employer=${world.id}`, undefined, { rawBody: stringify([HEADER, ...rows]), headers: { 'content-type': 'text/csv' } }),
    202,
  );
  if (!created) return;
  let checked: CensusImport | undefined = created;
  for (let round = 0; checked?.status === 'checking' && round < 100; round++) {
    await runDueJobs();
    checked = await steps.expect<CensusImport>('census import', a.admin.get(`/census_imports/${created.id}`));
  }
  if (checked?.status !== 'checked') {
    steps.failures.push({ day, invariant: 'census_absence', detail: `census import ${created.id} of ${world.name} ended ${checked?.status ?? 'unread'}` });
    return;
  }
  const { summary } = checked;
  // The file names only members the service knows, each once: nothing to create, nothing in error.
  if (summary.create > 0 || summary.error > 0 || summary.update !== moved || summary.missing < leftOut.length) {
    steps.failures.push({
      day,
      invariant: 'census_absence',
      detail: `census of ${world.name}: ${JSON.stringify(summary)} for ${rows.length} rows, ${moved} moved, ${leftOut.length} left out`,
    });
  }
  const applied = await steps.expect('census apply', a.admin.post(`/census_imports/${created.id}/apply`));
  if (!applied) return;
  steps.count('census_imports');
  steps.count('census_rows', rows.length);
  steps.count('census_left_out', leftOut.length);
  const after = await Promise.all(leftOut.map((member) => snapshot(a, member, day)));
  leftOut.forEach((member, index) => {
    if (before[index] !== after[index]) {
      steps.failures.push({
        day,
        invariant: 'census_absence',
        detail: `member ${member.id} left out of a census changed: ${before[index]} -> ${after[index]}`,
      });
    }
  });
}

/** What a census must not touch of a member it leaves out: their record's employment and their coverage today and at the plan year's end. */
async function snapshot(a: Actions, member: SimMember, day: string): Promise<string> {
  const [record, today, yearEnd] = await Promise.all([
    a.steps.expect<{ termination_date: string | null; employment_status: string | null }>('member', a.admin.get(`/members/${member.id}`)),
    a.steps.expect<{ coverage: unknown[] }>('member coverage', a.admin.get(`/members/${member.id}/coverage?date=${day}`)),
    a.steps.expect<{ coverage: unknown[] }>('member coverage', a.admin.get(`/members/${member.id}/coverage?date=2026-12-31`)),
  ]);
  return JSON.stringify([record?.termination_date, record?.employment_status, today?.coverage, yearEnd?.coverage]);
}
