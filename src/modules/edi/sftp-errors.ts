// How SFTP failures are told: one error type with a code and whether a retry can help, and the wrapping of
// ssh2's requests so that a server's refusal (or no answer) becomes one, its text cleaned of what a hostile server sends.
import ssh2 from 'ssh2';
import { withoutAddresses } from '../../shared/outbound-address.ts';

/** The most of a server's own error text kept in a message. */
const REMOTE_MESSAGE_CHARACTERS = 200;

export type SftpErrorCode =
  | 'address_refused'
  | 'host_key_mismatch'
  | 'auth_failed'
  | 'connection_failed'
  | 'connection_lost'
  | 'timeout'
  | 'remote_error'
  | 'file_too_large'
  | 'invalid_name';

/**
 * Whether trying again later can help. A wrong key or credential needs a person to fix the carrier profile
 * (and retrying a refused login can lock the account); a network failure or a slow server may pass.
 */
const RETRYABLE_BY_CODE: Record<SftpErrorCode, boolean> = {
  address_refused: false,
  host_key_mismatch: false,
  auth_failed: false,
  connection_failed: true,
  connection_lost: true,
  timeout: true,
  remote_error: true,
  file_too_large: false,
  invalid_name: false,
};

const { STATUS_CODE } = ssh2.utils.sftp;

/** SFTP statuses that no retry will cure: the folder is missing or we may not write there. */
const PERMANENT_REMOTE_STATUSES: ReadonlySet<number> = new Set([STATUS_CODE.NO_SUCH_FILE, STATUS_CODE.PERMISSION_DENIED]);

/** Every failure of the SFTP transport (sftp-*.ts). Messages name the host and the step, never a password or a key. */
export class SftpDeliveryError extends Error {
  override readonly name = 'SftpDeliveryError';
  readonly code: SftpErrorCode;
  readonly retryable: boolean;
  /** The SFTP status code the server answered, for `remote_error`. */
  readonly remoteStatus: number | undefined;

  constructor(code: SftpErrorCode, message: string, details: { retryable?: boolean; remoteStatus?: number } = {}) {
    super(message);
    this.code = code;
    this.retryable = details.retryable ?? RETRYABLE_BY_CODE[code];
    this.remoteStatus = details.remoteStatus;
  }
}

/* eslint-disable no-control-regex -- control characters are exactly what these find */
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
export const CONTROL_CHARACTER_RUNS = /[\u0000-\u001f\u007f-\u009f]+/g;
/* eslint-enable no-control-regex */

/** The server's own words, shortened and on one line: a hostile server may send anything. */
export function remoteText(error: Error): string {
  const line = withoutAddresses(error.message.replace(CONTROL_CHARACTER_RUNS, ' ').trim());
  return line.length > REMOTE_MESSAGE_CHARACTERS ? `${line.slice(0, REMOTE_MESSAGE_CHARACTERS)}…` : line;
}

/**
 * An SFTP request's failure. A numeric code is the server's STATUS answer; without one the request never got an
 * answer (ssh2 fails pending requests with "No response from server" when the channel closes).
 */
export function requestError(error: Error & { code?: unknown }, step: string): SftpDeliveryError {
  if (typeof error.code !== 'number') return new SftpDeliveryError('connection_lost', `The connection was lost while ${step}.`);
  const status = error.code;
  return new SftpDeliveryError('remote_error', `The server refused ${step}: ${remoteText(error)} (SFTP status ${status}).`, {
    retryable: !PERMANENT_REMOTE_STATUSES.has(status),
    remoteStatus: status,
  });
}

export type ErrorCallback = (error: Error | undefined | null) => void;

/** Wraps ssh2's callback style; a request that cannot even be sent (a closed channel) fails the same way. */
export function request<T>(step: string, send: (callback: (error: Error | undefined | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    try {
      send((error, value) => (error ? reject(requestError(error, step)) : resolve(value)));
    } catch (error) {
      reject(requestError(error as Error, step));
    }
  });
}

export function requestVoid(step: string, send: (callback: ErrorCallback) => void): Promise<void> {
  return request<void>(step, (callback) => send((error) => callback(error, undefined)));
}
