import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { jobErrorMessage } from '../../jobs/job-queue.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { AppError } from '../../shared/errors.ts';
import { sweepDayDue } from '../daily-sweep/sweep-rules.ts';
import { sftpSettingsOf, sftpTargetOf } from './edi-profile.ts';
import * as repository from './edi.repository.ts';
import type { EdiFileRow, EdiProfileRow } from './edi.table.ts';
import { SftpDeliveryError, withSftpSession, type SftpOptions, type SftpSession } from './sftp-transport.ts';

/** The largest acknowledgement downloaded: a 999 for one 834 is a few kilobytes; anything past this is not ours to read. */
export const MAX_ACKNOWLEDGEMENT_BYTES = 1024 * 1024;

const DEFAULT_CHECK_INTERVAL_MS = 60_000;
/** How often one carrier folder is looked at while a file of its groups awaits an acknowledgement. */
const DEFAULT_PICKUP_INTERVAL_MS = 15 * 60_000;

export interface EdiSchedulerOptions {
  db: Kysely<Database>;
  clock: Clock;
  files: {
    buildScheduledChangeFile(
      profile: Pick<EdiProfileRow, 'group_id' | 'provider_id'>,
      day: string,
    ): Promise<{ claimed: boolean; file: EdiFileRow | undefined }>;
  };
  acknowledgements: { acknowledgePickedUp(providerId: string, content: string): Promise<boolean> };
  /** Decrypts a profile's SFTP secret, for the moment of a pickup's connection only. */
  encrypter: Encrypter;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  checkIntervalMs?: number;
  /** Least time between two pickups from one carrier folder by this process; 15 minutes by default. */
  pickupIntervalMs?: number;
  sftp?: SftpOptions;
}

/** What one check did. */
export interface EdiCheckSummary {
  /** Change files this process built for the day. */
  built: string[];
  /** Acknowledgements that matched a file (applied, or already applied) and were removed from the carrier's folder. */
  acknowledgements: number;
  /** Groups whose build or pickup failed (logged). */
  failures: number;
}

/**
 * Builds each scheduled group's change file once a day, at its profile's local time (or at the first check
 * after it, e.g. after a restart), and picks up the carriers' acknowledgements from their SFTP outbound
 * folders. Every server process checks; the day of a group goes to the one process whose claim changes the
 * profile row (claimScheduledDay), so with several processes exactly one builds it. A pickup by two processes
 * at once is harmless: an acknowledgement is applied under the file's lock, once. One group's failure is
 * logged and the others go on.
 */
export class EdiScheduler {
  readonly #options: EdiSchedulerOptions;
  /** When this process last picked up from each carrier folder (epoch ms, by the injected clock). */
  readonly #lastPickup = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<EdiCheckSummary> | undefined;

  constructor(options: EdiSchedulerOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.checkNow(), this.#options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS);
    this.#timer.unref();
    void this.checkNow();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One check (a check already under way is joined, not doubled): the day's builds that are due, then pickups. */
  checkNow(): Promise<EdiCheckSummary> {
    this.#running ??= this.#check().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #check(): Promise<EdiCheckSummary> {
    const summary: EdiCheckSummary = { built: [], acknowledgements: 0, failures: 0 };
    let profiles: EdiProfileRow[];
    try {
      profiles = await repository.listScheduledProfiles(this.#options.db);
    } catch (error) {
      this.#options.log.error({ error: jobErrorMessage(error) }, 'EDI schedule check failed; the next check tries again');
      return summary;
    }
    for (const profile of profiles) {
      try {
        const built = await this.#buildIfDue(profile);
        if (built) summary.built.push(built);
      } catch (error) {
        summary.failures += 1;
        // The build's transaction rolled back with its claim of the day: the next check tries again.
        this.#options.log.error({ group: profile.group_id, error: jobErrorMessage(error) }, 'scheduled EDI change file failed');
      }
    }
    const pickedUpFolders = new Set<string>();
    for (const profile of profiles) {
      try {
        summary.acknowledgements += await this.#pickUpIfDue(profile, pickedUpFolders);
      } catch (error) {
        summary.failures += 1;
        this.#options.log.error({ group: profile.group_id, error: jobErrorMessage(error) }, 'EDI acknowledgement pickup failed; the next pickup tries again');
      }
    }
    return summary;
  }

  async #buildIfDue(profile: EdiProfileRow): Promise<string | undefined> {
    const { clock, files, log } = this.#options;
    if (profile.schedule_time === null || profile.schedule_time_zone === null) return undefined;
    const day = sweepDayDue(clock.now(), profile.schedule_time, profile.schedule_time_zone);
    if (day === undefined || (profile.last_scheduled_on !== null && profile.last_scheduled_on >= day)) return undefined;
    // The day is claimed in the build's transaction: a failed build leaves it for the next check.
    const { claimed, file } = await files.buildScheduledChangeFile(profile, day);
    if (!claimed) return undefined;
    if (!file) {
      log.info({ group: profile.group_id, day }, 'scheduled EDI change file: nothing to send');
      return undefined;
    }
    log.info({ group: profile.group_id, day, edi_file: file.id, members: Number(file.member_count) }, 'scheduled EDI change file built');
    return file.id;
  }

  /**
   * Picks up from the profile's outbound folder when a file of its group awaits an acknowledgement and the
   * folder was not looked at lately (by this process; once per check for groups sharing one folder).
   */
  async #pickUpIfDue(profile: EdiProfileRow, pickedUpFolders: Set<string>): Promise<number> {
    const { db, clock, encrypter } = this.#options;
    if (profile.delivery_method !== 'sftp' || profile.sftp === null) return 0;
    const folder = folderKey(profile);
    if (folder === undefined || pickedUpFolders.has(folder)) return 0;
    const now = clock.now().getTime();
    const last = this.#lastPickup.get(folder);
    if (last !== undefined && now - last < (this.#options.pickupIntervalMs ?? DEFAULT_PICKUP_INTERVAL_MS)) return 0;
    const awaiting = await repository.listFiles(
      db,
      { providerId: profile.provider_id, employerId: null },
      { groupId: profile.group_id, status: 'delivered' },
      { pageSize: 1 },
    );
    if (awaiting.results.length === 0) return 0;
    pickedUpFolders.add(folder);
    this.#lastPickup.set(folder, now);
    const target = sftpTargetOf(profile, encrypter);
    const directory = target?.outboundDirectory;
    if (!target || directory === undefined) return 0;
    return withSftpSession(target, (session) => this.#pickUp(session, profile, directory), this.#options.sftp);
  }

  /**
   * Each file of the folder: downloaded (1 MB at most), applied, and removed when it named a file of ours.
   * Files it cannot read or that name none of ours stay for a person to look at; logs carry their names, never
   * their content.
   */
  async #pickUp(session: SftpSession, profile: EdiProfileRow, directory: string): Promise<number> {
    const { acknowledgements, log } = this.#options;
    let matchedCount = 0;
    for (const remote of await session.listFiles(directory)) {
      const about = { group: profile.group_id, remote_file: remote.name };
      if (remote.size !== undefined && remote.size > MAX_ACKNOWLEDGEMENT_BYTES) {
        log.warn({ ...about, bytes: remote.size }, `EDI acknowledgement pickup: a file larger than ${MAX_ACKNOWLEDGEMENT_BYTES} bytes is left in place`);
        continue;
      }
      let text: string;
      try {
        text = (await session.downloadFile(remote.remotePath, MAX_ACKNOWLEDGEMENT_BYTES)).toString('utf8');
      } catch (error) {
        // Too large, or refused (gone meanwhile: another process took it); a lost connection ends the pickup.
        if (!(error instanceof SftpDeliveryError) || (error.code !== 'file_too_large' && error.code !== 'remote_error')) throw error;
        log.warn({ ...about, error: error.message }, 'EDI acknowledgement pickup: a file could not be downloaded; left in place');
        continue;
      }
      let matched: boolean;
      try {
        matched = await acknowledgements.acknowledgePickedUp(profile.provider_id, text);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        log.warn(
          { ...about, reason: error.inputErrors?.[0]?.message ?? error.message },
          'EDI acknowledgement pickup: not a readable 999 or TA1; left in place',
        );
        continue;
      }
      if (!matched) {
        log.warn(about, 'EDI acknowledgement pickup: the acknowledgement names no file of ours; left in place');
        continue;
      }
      await session.removeFile(remote.remotePath);
      matchedCount += 1;
      log.info(about, 'EDI acknowledgement picked up');
    }
    return matchedCount;
  }
}

/** One carrier folder of one provider: groups whose profiles share it are picked up from once per check. */
function folderKey(profile: EdiProfileRow): string | undefined {
  const settings = sftpSettingsOf(profile);
  if (!settings?.outbound_directory) return undefined;
  return JSON.stringify([profile.provider_id, settings.host, settings.port, settings.username, settings.outbound_directory]);
}
