import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Encrypter } from '../../shared/crypto.ts';
import { isTimeZone } from '../../shared/dates.ts';
import { NotFound, ValidationFailed, inputError, validationFailed, type InputError } from '../../shared/errors.ts';
import { describePorts, hostProblem, isAllowedPort } from '../../shared/outbound-address.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import { companionGuideOf, sftpSettingsOf, type CompanionGuide, type StoredSftpSettings } from './edi-profile.ts';
import type { EdiProfileResponse, PutEdiProfileBody } from './edi-profile.schemas.ts';
import type { EdiProfileRow } from './edi.table.ts';
import { findGroupById, lockGroupById } from '../groups/group.repository.ts';
import * as profileRepository from './edi-profile.repository.ts';
import type { SftpConnectionPolicy } from './sftp-transport.ts';

export function toEdiProfileResponse(row: EdiProfileRow, groupNumber: string): EdiProfileResponse {
  const guide = companionGuideOf(row);
  const sftp = sftpSettingsOf(row);
  return {
    group: row.group_id,
    employer: row.employer_id,
    interchange_sender: { qualifier: row.interchange_sender_qualifier as EdiProfileResponse['interchange_sender']['qualifier'], id: row.interchange_sender_id },
    interchange_receiver: {
      qualifier: row.interchange_receiver_qualifier as EdiProfileResponse['interchange_receiver']['qualifier'],
      id: row.interchange_receiver_id,
    },
    application_sender_code: row.application_sender_code,
    application_receiver_code: row.application_receiver_code,
    usage_indicator: row.usage_indicator,
    sponsor: { name: row.sponsor_name, tax_id: row.sponsor_tax_id },
    payer: { name: row.payer_name, id: row.payer_id, id_qualifier: row.payer_id_qualifier },
    master_policy_number: row.master_policy_number ?? groupNumber,
    companion_guide: {
      line_of_coverage_codes: guide.line_of_coverage_codes,
      coverage_level_codes: guide.coverage_level_codes,
      subscriber_id_source: guide.subscriber_id_source,
      send_member_ssn: guide.send_member_ssn,
      send_dependent_ssn: guide.send_dependent_ssn ?? false,
    },
    schedule: row.schedule_time !== null && row.schedule_time_zone !== null ? { time: row.schedule_time, time_zone: row.schedule_time_zone } : null,
    delivery:
      sftp === null
        ? { method: 'download' }
        : {
            method: 'sftp',
            host: sftp.host,
            port: sftp.port,
            username: sftp.username,
            host_key_fingerprint: sftp.host_key_fingerprint,
            inbound_directory: sftp.inbound_directory,
            outbound_directory: sftp.outbound_directory,
            archive_directory: sftp.archive_directory ?? null,
            auth: sftp.auth,
          },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The archive folder of picked-up acknowledgements: another folder than the one they are picked up from. */
function archiveDirectoryOf(delivery: { outbound_directory?: string | null; archive_directory?: string | null }): string | null {
  const archive = delivery.archive_directory ?? null;
  if (archive === null) return null;
  const folder = (path: string) => path.replace(/\/+$/, '') || '/';
  if (!delivery.outbound_directory) throw validationFailed(['delivery', 'archive_directory'], 'An archive_directory goes with an outbound_directory.');
  if (folder(archive) === folder(delivery.outbound_directory)) {
    throw validationFailed(['delivery', 'archive_directory'], 'Must be another folder than outbound_directory.');
  }
  return archive;
}

/** A group's trading-partner settings (admin keys only; the routes check the role). */
export class EdiProfileService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #encrypter: Encrypter;
  readonly #changes: ChangeCommit;
  readonly #sftpPolicy: SftpConnectionPolicy;

  /** `sftpPolicy`: where an SFTP delivery may point (the outbound address policy and SFTP_ALLOWED_PORTS). */
  constructor(options: { db: Kysely<Database>; clock: Clock; encrypter: Encrypter; changes: ChangeCommit; sftpPolicy: SftpConnectionPolicy }) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#encrypter = options.encrypter;
    this.#changes = options.changes;
    this.#sftpPolicy = options.sftpPolicy;
  }

  async getProfile(scope: Scope, groupId: string): Promise<EdiProfileResponse> {
    const group = await findGroupById(this.#db, scope, groupId);
    if (!group) throw new NotFound('group');
    const row = await profileRepository.findProfile(this.#db, group.id);
    if (!row) throw new NotFound('EDI profile');
    return toEdiProfileResponse(row, group.group_number);
  }

  /**
   * Creates or replaces the profile. A secret left out keeps the stored one (an integrator need not send a
   * password again to change a schedule); a first SFTP profile must give one.
   */
  async putProfile(scope: Scope, groupId: string, input: PutEdiProfileBody): Promise<EdiProfileResponse> {
    if (input.schedule && !isTimeZone(input.schedule.time_zone)) {
      throw validationFailed(['schedule', 'time_zone'], 'Must be an IANA time zone such as UTC or America/Chicago.');
    }
    if (input.delivery.method === 'sftp') this.#assertSftpAddress(input.delivery);
    return this.#db.transaction().execute(async (trx) => {
      const group = await lockGroupById(trx, scope, groupId);
      if (!group) throw new NotFound('group');
      const current = await profileRepository.findProfile(trx, group.id);
      const now = this.#clock.now().toISOString();
      const row: EdiProfileRow = {
        group_id: group.id,
        provider_id: group.provider_id,
        employer_id: group.employer_id,
        interchange_sender_qualifier: input.interchange_sender.qualifier,
        interchange_sender_id: input.interchange_sender.id,
        interchange_receiver_qualifier: input.interchange_receiver.qualifier,
        interchange_receiver_id: input.interchange_receiver.id,
        application_sender_code: input.application_sender_code,
        application_receiver_code: input.application_receiver_code,
        usage_indicator: input.usage_indicator ?? 'T',
        sponsor_name: input.sponsor.name,
        sponsor_tax_id: input.sponsor.tax_id,
        payer_name: input.payer.name,
        payer_id: input.payer.id,
        payer_id_qualifier: input.payer.id_qualifier ?? 'FI',
        master_policy_number: input.master_policy_number ?? null,
        companion_guide: JSON.stringify({
          line_of_coverage_codes: input.companion_guide?.line_of_coverage_codes ?? {},
          coverage_level_codes: input.companion_guide?.coverage_level_codes ?? {},
          subscriber_id_source: input.companion_guide?.subscriber_id_source ?? 'ssn',
          send_member_ssn: input.companion_guide?.send_member_ssn ?? true,
          send_dependent_ssn: input.companion_guide?.send_dependent_ssn ?? false,
        } satisfies CompanionGuide),
        schedule_time: input.schedule?.time ?? null,
        schedule_time_zone: input.schedule?.time_zone ?? null,
        last_scheduled_on: current?.last_scheduled_on ?? null,
        delivery_method: input.delivery.method,
        sftp: input.delivery.method === 'sftp' ? JSON.stringify(this.#sftpSettings(input.delivery, current)) : null,
        created_at: current?.created_at ?? now,
        updated_at: now,
      };
      await profileRepository.upsertProfile(trx, row, current !== undefined);
      await this.#changes.commit(trx, { events: [eventOf('edi_profile', current ? 'updated' : 'created', { ...row, id: row.group_id })] });
      return toEdiProfileResponse(row, group.group_number);
    });
  }

  async deleteProfile(scope: Scope, groupId: string): Promise<{ id: string; object: string; deleted: true }> {
    return this.#db.transaction().execute(async (trx) => {
      const group = await lockGroupById(trx, scope, groupId);
      if (!group) throw new NotFound('group');
      const current = await profileRepository.findProfile(trx, group.id);
      if (!current) throw new NotFound('EDI profile');
      await profileRepository.deleteProfile(trx, group.id);
      await this.#changes.commit(trx, { events: [eventOf('edi_profile', 'deleted', { ...current, id: current.group_id })] });
      return { id: group.id, object: 'edi_profile', deleted: true };
    });
  }

  /**
   * A host literal or internal-only name is refused now, before anything is stored; other names are resolved and
   * checked when connecting (sftp-transport.ts). docs/decisions.md "Outbound connections".
   */
  #assertSftpAddress(delivery: Extract<PutEdiProfileBody['delivery'], { method: 'sftp' }>): void {
    const errors: InputError[] = [];
    const problem = hostProblem(delivery.host, this.#sftpPolicy);
    if (problem) errors.push(inputError(['delivery', 'host'], problem));
    if (!isAllowedPort(this.#sftpPolicy.allowedPorts, delivery.port ?? 22)) {
      errors.push(inputError(['delivery', 'port'], `Must be ${describePorts(this.#sftpPolicy.allowedPorts)}: the SFTP ports this service connects to.`));
    }
    if (errors.length > 0) throw new ValidationFailed(errors);
  }

  #sftpSettings(delivery: Extract<PutEdiProfileBody['delivery'], { method: 'sftp' }>, current: EdiProfileRow | undefined): StoredSftpSettings {
    if (delivery.password !== undefined && delivery.private_key !== undefined) {
      throw validationFailed(['delivery'], 'Give either password or private_key, not both.');
    }
    if (delivery.passphrase !== undefined && delivery.private_key === undefined) {
      throw validationFailed(['delivery', 'passphrase'], 'A passphrase goes with a private_key.');
    }
    const stored = current ? sftpSettingsOf(current) : null;
    const secret =
      delivery.password !== undefined
        ? { auth: 'password' as const, secret_encrypted: this.#encrypter.encrypt(delivery.password), passphrase_encrypted: null }
        : delivery.private_key !== undefined
          ? {
              auth: 'private_key' as const,
              secret_encrypted: this.#encrypter.encrypt(delivery.private_key),
              passphrase_encrypted: delivery.passphrase !== undefined ? this.#encrypter.encrypt(delivery.passphrase) : null,
            }
          : stored
            ? { auth: stored.auth, secret_encrypted: stored.secret_encrypted, passphrase_encrypted: stored.passphrase_encrypted }
            : undefined;
    if (!secret) throw validationFailed(['delivery'], 'SFTP delivery needs a password or a private_key.');
    return {
      host: delivery.host,
      port: delivery.port ?? 22,
      username: delivery.username,
      host_key_fingerprint: delivery.host_key_fingerprint,
      inbound_directory: delivery.inbound_directory,
      outbound_directory: delivery.outbound_directory ?? null,
      archive_directory: archiveDirectoryOf(delivery),
      ...secret,
    };
  }
}
