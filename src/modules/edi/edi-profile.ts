import type { Encrypter } from '../../shared/crypto.ts';
import type { CoverageTier } from '../plans/coverage-tier.ts';
import type { LineOfCoverage } from '../plans/plan.table.ts';
import type { SftpTarget } from './sftp-transport.ts';
import type { EdiProfileRow } from './edi.table.ts';
import type { SUBSCRIBER_ID_SOURCES } from './edi-profile.schemas.ts';

/** The companion-guide choices carriers differ on, as stored (only what differs from the defaults is given). */
export interface CompanionGuide {
  line_of_coverage_codes: Partial<Record<LineOfCoverage, string>>;
  coverage_level_codes: Partial<Record<CoverageTier, string>>;
  subscriber_id_source: (typeof SUBSCRIBER_ID_SOURCES)[number];
  send_member_ssn: boolean;
  /** Absent in profiles stored before it existed: false. */
  send_dependent_ssn?: boolean;
}

/** SFTP settings as stored: the secret (password or private key) and passphrase encrypted. */
export interface StoredSftpSettings {
  host: string;
  port: number;
  username: string;
  host_key_fingerprint: string;
  inbound_directory: string;
  outbound_directory: string | null;
  /** Where picked-up acknowledgements are moved (absent in profiles stored before it existed: removed instead). */
  archive_directory?: string | null;
  auth: 'password' | 'private_key';
  secret_encrypted: string;
  passphrase_encrypted: string | null;
}

export function companionGuideOf(row: Pick<EdiProfileRow, 'companion_guide'>): CompanionGuide {
  return JSON.parse(row.companion_guide) as CompanionGuide;
}

export function sftpSettingsOf(row: Pick<EdiProfileRow, 'sftp'>): StoredSftpSettings | null {
  return row.sftp === null ? null : (JSON.parse(row.sftp) as StoredSftpSettings);
}

/** The SFTP target of a profile, its secrets decrypted (only for the moment of a connection). */
export function sftpTargetOf(row: Pick<EdiProfileRow, 'sftp'>, encrypter: Encrypter): SftpTarget | undefined {
  const settings = sftpSettingsOf(row);
  if (!settings) return undefined;
  const secret = encrypter.decrypt(settings.secret_encrypted);
  return {
    host: settings.host,
    port: settings.port,
    username: settings.username,
    hostKeyFingerprint: settings.host_key_fingerprint,
    auth:
      settings.auth === 'password'
        ? { password: secret }
        : { privateKey: secret, ...(settings.passphrase_encrypted ? { passphrase: encrypter.decrypt(settings.passphrase_encrypted) } : {}) },
    inboundDirectory: settings.inbound_directory,
    ...(settings.outbound_directory ? { outboundDirectory: settings.outbound_directory } : {}),
  };
}

/** The key control numbers are kept under: one sequence per pair of interchange sender and receiver. */
export function tradingPartnerKey(row: EdiProfileRow): string {
  return JSON.stringify([
    row.provider_id,
    row.interchange_sender_qualifier,
    row.interchange_sender_id,
    row.interchange_receiver_qualifier,
    row.interchange_receiver_id,
  ]);
}
