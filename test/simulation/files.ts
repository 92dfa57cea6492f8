import type { JobWorker } from '../../src/jobs/job-worker.ts';
import type { EdiScheduler } from '../../src/modules/edi/edi-scheduler.ts';
import type { SftpTestServer } from '../helpers/sftp-server.ts';
import type { TestContext } from '../helpers/test-app-core.ts';
import type { Random } from './random.ts';
import type { Steps } from './steps.ts';
import type { SimGroup } from './world.ts';

// The carriers' side of each day: the file schedule builds the day's 834 change files (what the server does on
// its own), the job worker uploads SFTP ones, a person takes download ones to the portal, and each carrier
// answers with a 999: mostly accepted, some rejected, which are resent (POST /edi_files/{id}/resend) and then
// accepted. SFTP carriers leave their 999 in their outbound folder, picked up by the schedule's next check.

/** The share of first deliveries a carrier rejects. */
const REJECT_RATE = 0.06;

export interface DayFile {
  id: string;
  content: string;
}

interface FileRecord {
  id: string;
  group: string;
  status: string;
  group_control_number: number;
  replaces: string | null;
}

/**
 * A carrier's 999 of our functional group `groupControlNumber`: one 834 set, accepted or rejected (ISA: the
 * carrier to us, with its own `control` number).
 */
export function carrier999(carrierCode: string, groupControlNumber: number, accepted: boolean, day: string, control: number): string {
  const yymmdd = day.slice(2).replaceAll('-', '');
  const isa = [
    'ISA',
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    'ZZ',
    carrierCode.padEnd(15),
    'ZZ',
    'BENEFITSCO'.padEnd(15),
    yymmdd,
    '1800',
    '^',
    '00501',
    String(control).padStart(9, '0'),
    '0',
    'T',
    ':',
  ].join('*');
  const result = accepted ? 'A' : 'R';
  const body = [
    'ST*999*0001*005010X231A1',
    `AK1*BE*${groupControlNumber}*005010X220A1`,
    'AK2*834*0001*005010X220A1',
    accepted ? 'IK5*A' : 'IK5*R*5',
    `AK9*${result}*1*1*${accepted ? 1 : 0}`,
  ];
  return [
    `${isa}~`,
    `GS*FA*${carrierCode}*BENEFITSCO*20${yymmdd}*1800*${control}*X*005010X231A1~`,
    ...body.map((segment) => `${segment}~`),
    `SE*${body.length + 1}*0001~`,
    `GE*1*${control}~`,
    `IEA*1*${String(control).padStart(9, '0')}~`,
  ].join('\n');
}

export class CarrierDesk {
  readonly #t: TestContext;
  readonly #steps: Steps;
  readonly #random: Random;
  readonly #worker: JobWorker;
  readonly #scheduler: EdiScheduler;
  readonly #sftp: SftpTestServer | undefined;
  readonly #groups: ReadonlyMap<string, SimGroup>;
  /** The carriers' acknowledgement control numbers (ISA13/GS06 of their 999s). */
  #control = 700;

  constructor(options: {
    t: TestContext;
    steps: Steps;
    random: Random;
    worker: JobWorker;
    scheduler: EdiScheduler;
    sftp: SftpTestServer | undefined;
    groups: ReadonlyMap<string, SimGroup>;
  }) {
    this.#t = options.t;
    this.#steps = options.steps;
    this.#random = options.random;
    this.#worker = options.worker;
    this.#scheduler = options.scheduler;
    this.#sftp = options.sftp;
    this.#groups = options.groups;
  }

  /** Runs every job that is due (SFTP uploads, API carrier submissions), until none is left. */
  async runDueJobs(): Promise<void> {
    while ((await this.#worker.runDueJobs()) > 0);
  }

  /** The evening of `day`: the schedule's builds, deliveries, acknowledgements and resends. The files built, with their content. */
  async runDay(day: string): Promise<DayFile[]> {
    const steps = this.#steps;
    this.#t.clock.set(`${day}T23:30:00.000Z`);
    const summary = await this.#scheduler.checkNow();
    if (summary.failures > 0) steps.failures.push({ day, invariant: 'api_step', detail: `EDI schedule check: ${summary.failures} failures` });
    const files: DayFile[] = [];
    let waiting = await this.#deliver(summary.built, files);
    steps.count('edi_files_built', summary.built.length);
    // Each carrier answers; what it rejects is resent and answered again (a resend is never rejected here).
    for (let round = 0; round < 2 && waiting.length > 0; round++) {
      const rejected = await this.#acknowledge(day, waiting, round === 0);
      const resent: string[] = [];
      for (const file of rejected) {
        const replacement = await steps.expect<FileRecord>('resend a rejected file', this.#t.admin.post(`/edi_files/${file.id}/resend`), 201);
        if (replacement) {
          resent.push(replacement.id);
          steps.count('edi_files_resent');
        }
      }
      waiting = await this.#deliver(resent, files);
    }
    return files;
  }

  /** Delivers the files (SFTP by the upload job, download by a person) and reads their content. */
  async #deliver(ids: readonly string[], files: DayFile[]): Promise<FileRecord[]> {
    const steps = this.#steps;
    const admin = this.#t.admin;
    if (ids.length === 0) return [];
    await this.runDueJobs();
    const delivered: FileRecord[] = [];
    for (const id of ids) {
      const content = await admin.get(`/edi_files/${id}/content`);
      if (content.status === 200) files.push({ id, content: content.text });
      else await steps.expect('EDI file content', Promise.resolve(content));
      let file = await steps.expect<FileRecord>('EDI file', admin.get(`/edi_files/${id}`));
      if (!file) continue;
      const group = this.#groups.get(file.group);
      if (group?.delivery === 'download') {
        file = await steps.expect<FileRecord>('deliver a download file', admin.post(`/edi_files/${id}/deliver`));
        steps.count('edi_files_downloaded');
      } else steps.count('edi_files_uploaded');
      if (!file) continue;
      if (file.status !== 'delivered') {
        steps.failures.push({ day: steps.day, invariant: 'api_step', detail: `EDI file ${id} is ${file.status} after its delivery` });
        continue;
      }
      delivered.push(file);
    }
    return delivered;
  }

  /** Each carrier's 999 for the delivered files; the files rejected. */
  async #acknowledge(day: string, delivered: readonly FileRecord[], mayReject: boolean): Promise<FileRecord[]> {
    const steps = this.#steps;
    const rejected: FileRecord[] = [];
    let picked = 0;
    for (const file of delivered) {
      const group = this.#groups.get(file.group);
      if (!group) continue;
      const accepted = !mayReject || !this.#random.chance(REJECT_RATE);
      this.#control += 1;
      const content = carrier999(group.carrierCode, file.group_control_number, accepted, day, this.#control);
      if (group.delivery === 'sftp' && this.#sftp && group.outbound) {
        this.#sftp.putFile(`${group.outbound}/999_${file.group_control_number}.x12`, content);
        picked += 1;
      } else {
        await steps.expect('acknowledge a file', this.#t.admin.post(`/edi_files/${file.id}/acknowledgements`, { content }));
      }
      steps.count(accepted ? 'edi_files_accepted' : 'edi_files_rejected');
      if (!accepted) rejected.push(file);
    }
    if (picked > 0) {
      // The schedule's next check picks the 999s up (a pickup per folder at most once a minute here).
      this.#t.clock.advance(2 * 60_000);
      const summary = await this.#scheduler.checkNow();
      if (summary.acknowledgements !== picked || summary.failures > 0) {
        steps.failures.push({
          day,
          invariant: 'api_step',
          detail: `SFTP pickup applied ${summary.acknowledgements} of ${picked} acknowledgements (${summary.failures} failures)`,
        });
      }
      steps.count('edi_acknowledgements_picked_up', summary.acknowledgements);
    }
    return rejected;
  }
}
