import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { createMember } from '../helpers/factories.ts';
import { createTestApp, ok, TEST_ENCRYPTION_KEY, type TestContext } from '../helpers/test-app.ts';

// `benefits census import` and `benefits census apply` (docs/decisions.md "Census imports", "From the command
// line"): the real command in a child process, on the test app's database, with the key its SSNs are encrypted with.
vi.setConfig({ testTimeout: 180_000 });

let t: TestContext;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  env = { DATABASE_URL: t.database.url, BENEFITS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY.toString('hex') };
  dir = mkdtempSync(join(tmpdir(), 'census-cli-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

const HEADER = 'employee_id,relationship,first_name,last_name,dob,sex,ssn,address_line1,city,state,zip_code,hire_date,termination_date,termination_reason';
const ADDRESS = '1 Elm St,Springfield,IL,62701';
let files = 0;
function file(lines: string[]): string {
  files += 1;
  const path = join(dir, `roster-${files}.csv`);
  writeFileSync(path, `${[HEADER, ...lines].join('\n')}\n`);
  return path;
}

async function newEmployer(name: string): Promise<string> {
  const employer = await ok(
    t.admin.post('/employers', { legal_name: name, address: { line1: '1 Main', city: 'Springfield', state: 'IL', zip_code: '62701' } }),
    201,
  );
  return employer.id;
}

async function membersOf(employer: string): Promise<{ id: string; first_name: string; termination_date: string | null }[]> {
  return (await ok(t.admin.get(`/members?employer=${employer}&page_size=100`))).results;
}

const importId = (stdout: string) => /Census import (cimp_\w+)/.exec(stdout)?.[1];

describe('benefits census import', () => {
  it('when a file has creates, an update, errors and leaves a member out, then the dry run prints each count, the errors by line and column, and writes nothing', async () => {
    const employer = await newEmployer('Roster CLI Co');
    const kept = await createMember(t.admin, { employer, first_name: 'Sol', last_name: 'Reyes', hire_date: '2019-01-01', payroll_provider_external_id: 'E1' });
    await createMember(t.admin, { employer, first_name: 'Ada', last_name: 'Left', hire_date: '2019-01-01', payroll_provider_external_id: 'GONE' });
    const roster = file([
      `E1,employee,Solomon,Reyes,1980-02-02,M,,${ADDRESS},2019-01-01,,`, // line 2: update (first name)
      `E2,employee,Nia,Park,1990-03-03,F,123-45-6789,${ADDRESS},2024-05-01,,`, // line 3: create
      `E2,child,Tam,Park,2018-04-04,M,,,,,,,,`, // line 4: a dependent created with its member
      `E3,employee,Bo,Kim,1985-13-01,M,,${ADDRESS},2024-05-01,,`, // line 5: error (dob)
      `E4,employee,=HYPERLINK(1),Kim,1985-01-01,M,,${ADDRESS},2024-05-01,,`, // line 6: error (first_name)
    ]);

    const result = await runCli(['census', 'import', roster, '--employer', employer], env);

    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout).toMatch(/Census import cimp_\w+ of employer .*: checked, 5 rows \(dry run: nothing written to members\)/);
    expect(result.stdout).toMatch(/^ {2}create {6}2$/m);
    expect(result.stdout).toMatch(/^ {2}update {6}1$/m);
    expect(result.stdout).toMatch(/^ {2}errors {6}2 /m);
    expect(result.stdout).toMatch(/^ {2}missing {5}1 employed member\(s\) not in the file: listed, never terminated$/m);
    expect(result.stdout).toContain('  line 5, dob: Must be a calendar date, YYYY-MM-DD.');
    expect(result.stdout).toMatch(/ {2}line 6, first_name: Starts like a spreadsheet formula/);
    expect(result.stdout).toContain(`benefits census apply ${importId(result.stdout)}`);
    expect(result.stdout).not.toContain('123-45-6789');
    // Progress on stderr: not a terminal, so a line (here one: a single batch), never a bar's carriage return.
    expect(result.stderr).toContain('Checking: 5 of 5 rows (100%)');
    expect(result.stderr).not.toContain('\r');

    const members = await membersOf(employer);
    expect(members.map((m) => m.first_name).sort()).toEqual(['Ada', 'Sol']);
    const stored = await ok(t.admin.get(`/census_imports/${importId(result.stdout)}`));
    expect(stored.status).toBe('checked');
    expect(stored.summary.create).toBe(2);

    // The reviewed dry run applied by id: the rows in error skipped (exit 3), the rest applied through the services.
    const applied = await runCli(['census', 'apply', importId(result.stdout)!], env);
    expect(applied.code, applied.stderr).toBe(3);
    expect(applied.stdout).toContain('3 row(s) applied, 0 skipped as changed since the dry run, 0 refused; 2 row(s) in error skipped; status applied.');
    expect((await membersOf(employer)).map((m) => m.first_name).sort()).toEqual(['Ada', 'Nia', 'Solomon']);
    expect((await ok(t.admin.get(`/members/${kept.id}`))).first_name).toBe('Solomon');
    // Never terminated by absence.
    expect((await membersOf(employer)).find((m) => m.first_name === 'Ada')?.termination_date).toBeNull();

    // Applied again: a no-op.
    const again = await runCli(['census', 'apply', importId(result.stdout)!], env);
    expect(again.stdout).toContain('3 row(s) applied');
    expect((await membersOf(employer)).length).toBe(3);
  });

  it('when a clean file is imported with --apply, then it exits 0 and the members are there; the same file again changes nothing', async () => {
    const employer = await newEmployer('Clean CLI Co');
    const roster = file([`C1,employee,Ivy,Stone,1980-02-02,F,,${ADDRESS},2019-01-01,,`, `C2,employee,Max,Stone,1982-02-02,M,,${ADDRESS},2019-01-01,,`]);

    const first = await runCli(['census', 'import', roster, '--employer', employer, '--apply'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('2 row(s) applied');
    expect(first.stderr).toContain('Applying: 2 of 2 rows (100%)');
    expect((await membersOf(employer)).map((m) => m.first_name).sort()).toEqual(['Ivy', 'Max']);

    const second = await runCli(['census', 'import', roster, '--employer', employer, '--apply'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^ {2}unchanged {3}2$/m);
    expect(second.stdout).toContain('0 row(s) applied');
  });

  it('when the file terminates more than the share, then --apply is refused (exit 1, nothing applied) until --confirm-terminations', async () => {
    const employer = await newEmployer('Layoff CLI Co');
    for (const id of ['T1', 'T2', 'T3'])
      await createMember(t.admin, { employer, first_name: `Worker${id}`, last_name: 'Lane', hire_date: '2019-01-01', payroll_provider_external_id: id });
    const roster = file([
      `T1,employee,WorkerT1,Lane,1980-02-02,F,,${ADDRESS},2019-01-01,2031-01-31,voluntary`,
      `T2,employee,WorkerT2,Lane,1980-02-02,F,,${ADDRESS},2019-01-01,,`,
    ]);

    const refused = await runCli(['census', 'import', roster, '--employer', employer, '--apply', '--max-termination-share', '0.2'], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('the apply needs --confirm-terminations');
    expect(refused.stderr).toMatch(
      /terminates 1 of the employer's 3 employed members.*Nothing was applied\. From here: benefits census apply cimp_\w+ --confirm-terminations/,
    );
    expect((await membersOf(employer)).every((m) => m.termination_date === null)).toBe(true);

    const confirmed = await runCli(
      ['census', 'import', roster, '--employer', employer, '--apply', '--max-termination-share', '0.2', '--confirm-terminations'],
      env,
    );
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect((await membersOf(employer)).find((m) => m.first_name === 'WorkerT1')?.termination_date).toBe('2031-01-31');
  });

  it.each([
    [['census', 'import', 'x.csv'], "required option '--employer <id>' not specified"],
    [['census', 'import', '--employer', 'er_x'], "missing required argument 'file'"],
    [['census', 'import', 'x.csv', '--employer', 'er_x', '--max-termination-share', '1.5'], 'it must be a number from 0 to 1'],
    [['census', 'import', 'x.csv', '--employer', 'er_x', '--show', '-1'], "option '--show <count>' argument '-1' is invalid"],
    [['census', 'apply'], "missing required argument 'id'"],
  ])('when %j is not understood, then it exits 2 with one line', async (args, why) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(why);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('when the file, the employer or the provider is not right, then it exits 1 with one line saying which, and stores nothing', async () => {
    const employer = await newEmployer('Refusals CLI Co');
    const missing = await runCli(['census', 'import', join(dir, 'absent.csv'), '--employer', employer], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read');

    const notCensus = join(dir, 'not-census.csv');
    writeFileSync(notCensus, 'employee_id,relationship,salary\nE1,employee,100\n');
    const unknownColumn = await runCli(['census', 'import', notCensus, '--employer', employer], env);
    expect(unknownColumn.code).toBe(1);
    expect(unknownColumn.stderr).toContain(`${notCensus}: Unknown column "salary" in the header (line 1)`);

    const latin1 = join(dir, 'latin1.csv');
    writeFileSync(
      latin1,
      Buffer.concat([Buffer.from(`${HEADER}\nL1,employee,Ren`), Buffer.from([0xe9]), Buffer.from(`e,Roy,1980-01-01,,,${ADDRESS},2020-01-01,,\n`)]),
    );
    const notUtf8 = await runCli(['census', 'import', latin1, '--employer', employer], env);
    expect(notUtf8.code).toBe(1);
    expect(notUtf8.stderr).toContain('is not UTF-8 text');

    const roster = file([`N1,employee,Ivy,Stone,1980-02-02,F,,${ADDRESS},2019-01-01,,`]);
    const noEmployer = await runCli(['census', 'import', roster, '--employer', 'er_doesnotexist'], env);
    expect(noEmployer.code).toBe(1);
    expect(noEmployer.stderr).toContain('No such employer.');
    const otherProvider = await runCli(['census', 'import', roster, '--employer', employer, '--provider', 'nobody'], env);
    expect(otherProvider.code).toBe(1);
    expect(otherProvider.stderr).toContain('no provider named "nobody"');

    const imports = await ok(t.admin.get(`/members?employer=${employer}`));
    expect(imports.results).toHaveLength(0);
  });

  it('when --help is asked, then it names the options and the exit codes', async () => {
    const help = await runCli(['census', 'import', '--help'], env);
    expect(help.code).toBe(0);
    for (const option of ['--employer <id>', '--provider <name>', '--apply', '--confirm-terminations', '--max-termination-share <share>', '--show <count>'])
      expect(help.stdout).toContain(option);
    expect(help.stdout).toMatch(/Exit codes: 0 .*; 1 refused or failed/);
    expect(help.stdout).toMatch(/3 done, but rows were skipped/);
  });
});
