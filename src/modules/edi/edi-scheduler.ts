import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { jobErrorMessage } from '../../jobs/job-queue.ts';
import { wakingAfter, type Wakeable } from '../../jobs/job-wake.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { sweepDayDue } from '../daily-sweep/sweep-rules.ts';
import { sftpSettingsOf, sftpTargetOf } from './edi-profile.ts';
import * as acknowledgementRepository from './edi-acknowledgement.repository.ts';
import * as fileRepository from './edi-file.repository.ts';
import * as profileRepository from './edi-profile.repository.ts';
import type { PickedUpFile, PickupOutcome } from './edi-acknowledgement.service.ts';
import type { EdiFileRow, EdiPickupOutcome, EdiProfileRow } from './edi.table.ts';
import { SftpDeliveryError } from './sftp-errors.ts';
import type { SftpSession } from './sftp-session.ts';
import { DEFAULT_SFTP_OPERATION_TIMEOUT_MS, withSftpSession, type SftpOptions } from './sftp-transport.ts';

/** The largest acknowledgement downloaded: a 999 for one 834 is a few kilobytes; anything past this is not ours to read. */
export const MAX_ACKNOWLEDGEMENT_BYTES = 1024 * 1024;

const DEFAULT_CHECK_INTERVAL_MS = 60_000;
/** How often one carrier folder is looked at while a file of its groups awaits an acknowledgement. */
const DEFAULT_PICKUP_INTERVAL_MS = 15 * 60_000;
const DEFAULT_PICKUP_MAX_DOWNLOADS = 500;
const DEFAULT_PICKUP_BUDGET_MS = 20_000;

export interface EdiSchedulerOptions {
  db: Kysely<Database>;
  clock: Clock;
  files: {
    buildScheduledChangeFile(
      profile: Pick<EdiProfileRow, 'group_id' | 'provider_id'>,
      day: string,
    ): Promise<{ claimed: boolean; file: EdiFileRow | undefined }>;
  };
  acknowledgements: { acknowledgePickedUp(providerId: string, content: string, picked: PickedUpFile): Promise<PickupOutcome> };
  /** Decrypts a profile's SFTP secret, for the moment of a pickup's connection only. */
  encrypter: Encrypter;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  checkIntervalMs?: number;
  /** Least time between two pickups from one carrier folder by this process; 15 minutes by default. */
  pickupIntervalMs?: number;
  /** The most files one pickup downloads from a folder; 500 by default (the rest at the next check). */
  pickupMaxDownloads?: number;
  /** How long one pickup may go on taking files, in ms; 20 s by default (within the SFTP operation timeout). */
  pickupBudgetMs?: number;
  sftp?: SftpOptions;
  /** The job worker, woken after a build or pickup that enqueued jobs (a file's upload, webhook deliveries): jobs/job-wake.ts. */
  worker?: Wakeable | undefined;
}

/** What one check did. */
export interface EdiCheckSummary {
  /** Change files this process built for the day. */
  built: string[];
  /** Acknowledgement files that matched a file (applied, or already applied) and were moved or removed from the carrier's folder. */
  acknowledgements: number;
  /** Acknowledgement files that matched none of ours: stored unmatched, left in the folder. */
  unmatchedAcknowledgements: number;
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
    const summary: EdiCheckSummary = { built: [], acknowledgements: 0, unmatchedAcknowledgements: 0, failures: 0 };
    let profiles: EdiProfileRow[];
    try {
      profiles = await profileRepository.listScheduledProfiles(this.#options.db);
    } catch (error) {
      this.#options.log.error({ error: jobErrorMessage(error) }, 'EDI schedule check failed; the next check tries again');
      return summary;
    }
    for (const profile of profiles) {
      try {
        const built = await wakingAfter(this.#options.worker, () => this.#buildIfDue(profile));
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
        const pickup = await wakingAfter(this.#options.worker, () => this.#pickUpIfDue(profile, pickedUpFolders));
        summary.acknowledgements += pickup.consumed;
        summary.unmatchedAcknowledgements += pickup.unmatched;
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
  async #pickUpIfDue(profile: EdiProfileRow, pickedUpFolders: Set<string>): Promise<PickupSummary> {
    const { db, clock, encrypter } = this.#options;
    const nothing: PickupSummary = { consumed: 0, unmatched: 0, complete: true };
    if (profile.delivery_method !== 'sftp' || profile.sftp === null) return nothing;
    const folder = folderKey(profile);
    if (folder === undefined || pickedUpFolders.has(folder)) return nothing;
    const now = clock.now().getTime();
    const last = this.#lastPickup.get(folder);
    if (last !== undefined && now - last < (this.#options.pickupIntervalMs ?? DEFAULT_PICKUP_INTERVAL_MS)) return nothing;
    const awaiting = await fileRepository.listFiles(
      db,
      { providerId: profile.provider_id, employerId: null },
      { groupId: profile.group_id, status: 'delivered' },
      { pageSize: 1 },
    );
    if (awaiting.results.length === 0) return nothing;
    pickedUpFolders.add(folder);
    this.#lastPickup.set(folder, now);
    const target = sftpTargetOf(profile, encrypter);
    const directory = target?.outboundDirectory;
    if (!target || directory === undefined) return { consumed: 0, unmatched: 0, complete: true };
    const summary = await withSftpSession(target, (session) => this.#pickUp(session, profile, directory, folder), this.#options.sftp);
    // Cut short: what is left is read at the next check, not in fifteen minutes.
    if (!summary.complete) this.#lastPickup.delete(folder);
    return summary;
  }

  /**
   * Reads the folder to its end, one server answer at a time, and takes each file not read before (by name,
   * size and time, in edi_pickup_seen_files): downloaded (1 MB at most) and applied; a file that was about one
   * of our files is moved to the profile's archive_directory, or removed. Anything else is remembered as read
   * and left in place: acknowledgements that match none of our files are stored unmatched (visible to
   * admins), files that are not X12 or too large are only logged, by name, never by content. At most
   * pickupMaxDownloads files and pickupBudgetMs of downloading per pickup: the rest waits for the next check
   * (the folder is then due at once), which skips what was read, so no file is starved by others.
   */
  async #pickUp(session: SftpSession, profile: EdiProfileRow, directory: string, folder: string): Promise<PickupSummary> {
    const { db, acknowledgements, clock, log } = this.#options;
    const archive = sftpSettingsOf(profile)?.archive_directory ?? null;
    const maxDownloads = this.#options.pickupMaxDownloads ?? DEFAULT_PICKUP_MAX_DOWNLOADS;
    // Within the connection's own limit, which covers the listing and the moves too.
    const operationTimeoutMs = this.#options.sftp?.operationTimeoutMs ?? DEFAULT_SFTP_OPERATION_TIMEOUT_MS;
    const deadline = performance.now() + Math.min(this.#options.pickupBudgetMs ?? DEFAULT_PICKUP_BUDGET_MS, operationTimeoutMs / 3);
    const folderKey = createHash('sha256').update(folder).digest('hex');
    const summary: PickupSummary = { consumed: 0, unmatched: 0, complete: true };
    let downloads = 0;
    const remember = (picked: PickedUpFile, outcome: EdiPickupOutcome) =>
      acknowledgementRepository.rememberSeenFile(db, {
        folder_key: folderKey,
        name: picked.name,
        size: picked.size,
        modified_at: picked.modifiedAt,
        provider_id: profile.provider_id,
        outcome,
        seen_at: clock.now().toISOString(),
      });
    for await (const batch of session.readDirectory(directory)) {
      const seen = new Set(
        (
          await acknowledgementRepository.findSeenFiles(
            db,
            folderKey,
            batch.map((remote) => remote.name),
          )
        ).map((row) => seenKey(row.name, row.size, row.modified_at)),
      );
      for (const remote of batch) {
        const picked: PickedUpFile = {
          folderKey,
          name: remote.name,
          size: remote.size ?? -1,
          modifiedAt: remote.modifiedAt === undefined ? -1 : Math.floor(remote.modifiedAt.getTime() / 1000),
        };
        if (seen.has(seenKey(picked.name, picked.size, picked.modifiedAt))) continue;
        if (downloads >= maxDownloads || performance.now() > deadline) {
          summary.complete = false;
          return summary;
        }
        const about = { group: profile.group_id, remote_file: remote.name };
        if (remote.size !== undefined && remote.size > MAX_ACKNOWLEDGEMENT_BYTES) {
          log.warn({ ...about, bytes: remote.size }, `EDI acknowledgement pickup: a file larger than ${MAX_ACKNOWLEDGEMENT_BYTES} bytes is left in place`);
          await remember(picked, 'too_large');
          continue;
        }
        downloads += 1;
        let text: string;
        try {
          text = (await session.downloadFile(remote.remotePath, MAX_ACKNOWLEDGEMENT_BYTES)).toString('utf8');
        } catch (error) {
          // Too large, or refused (gone meanwhile: another process took it); a lost connection ends the pickup.
          if (!(error instanceof SftpDeliveryError) || (error.code !== 'file_too_large' && error.code !== 'remote_error')) throw error;
          log.warn({ ...about, error: error.message }, 'EDI acknowledgement pickup: a file could not be downloaded; left in place');
          if (error.code === 'file_too_large') await remember(picked, 'too_large');
          continue;
        }
        if (!looksLikeX12(text)) {
          log.warn(about, 'EDI acknowledgement pickup: not X12; left in place');
          await remember(picked, 'not_x12');
          continue;
        }
        const { outcome } = await acknowledgements.acknowledgePickedUp(profile.provider_id, text, picked);
        if (outcome !== 'applied') {
          summary.unmatched += 1;
          log.warn({ ...about, outcome }, 'EDI acknowledgement pickup: not for any file of ours; stored unmatched and left in place');
          continue;
        }
        try {
          if (archive === null) await session.removeFile(remote.remotePath);
          else await session.moveFile(remote.remotePath, archive);
        } catch (error) {
          // Refused (no archive folder, no right to it, taken by another process): applied and remembered all the same.
          if (!(error instanceof SftpDeliveryError) || error.code !== 'remote_error') throw error;
          log.warn({ ...about, error: error.message }, 'EDI acknowledgement pickup: applied, but could not be moved or removed; left in place');
        }
        summary.consumed += 1;
        log.info({ ...about, ...(archive === null ? {} : { archived_to: archive }) }, 'EDI acknowledgement picked up');
      }
    }
    return summary;
  }
}

/** What one pickup did: files consumed (applied, then moved or removed), stored unmatched, and whether it read the folder to its end. */
interface PickupSummary {
  consumed: number;
  unmatched: number;
  complete: boolean;
}

function seenKey(name: string, size: number, modifiedAt: number): string {
  return JSON.stringify([name, size, modifiedAt]);
}

/** Text that starts (after white space and a byte order mark) with an ISA segment. */
function looksLikeX12(text: string): boolean {
  return /^[\s\uFEFF]*ISA/.test(text.slice(0, 64));
}

/** One carrier folder of one provider: groups whose profiles share it are picked up from once per check. */
function folderKey(profile: EdiProfileRow): string | undefined {
  const settings = sftpSettingsOf(profile);
  if (!settings?.outbound_directory) return undefined;
  return JSON.stringify([profile.provider_id, settings.host, settings.port, settings.username, settings.outbound_directory]);
}
