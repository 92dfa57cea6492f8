import { createHash, timingSafeEqual } from 'node:crypto';
import ssh2, {
  type Client,
  type ConnectConfig,
  type FileEntryWithStats,
  type ParsedKey,
  type PasswordAuthMethod,
  type PublicKeyAuthMethod,
  type SFTPWrapper,
  type Stats,
} from 'ssh2';
import {
  DEFAULT_SFTP_PORTS,
  REFUSED_ADDRESS,
  describePorts,
  isAllowedPort,
  resolveOutboundHost,
  withoutAddresses,
  type OutboundPolicy,
  type PortRanges,
  type ResolvedAddress,
  type Resolver,
} from '../../shared/outbound-address.ts';

/**
 * Where one carrier takes our files: an SFTP account whose server key is pinned. The fingerprint is the form
 * `ssh-keygen -lf` prints (`SHA256:` and unpadded base64), so a carrier's published value can be pasted as is.
 */
export interface SftpTarget {
  host: string;
  port: number;
  username: string;
  hostKeyFingerprint: string;
  auth: SftpAuth;
  /** Where we upload (the carrier's inbound folder). */
  inboundDirectory: string;
  /** Where the carrier leaves acknowledgements (999, TA1) for us to pick up. */
  outboundDirectory?: string;
}

/** A password, or a private key in PEM or OpenSSH text (with its passphrase when encrypted). */
export type SftpAuth = { password: string } | { privateKey: string; passphrase?: string };

/** Where SFTP may connect: the outbound address policy, and the ports SFTP_ALLOWED_PORTS allows. */
export interface SftpConnectionPolicy extends OutboundPolicy {
  readonly allowedPorts: PortRanges;
}

/** What a deployment gets unless its configuration says otherwise: public addresses only, ports 22 and 2222. */
export const DEFAULT_SFTP_POLICY: SftpConnectionPolicy = { allowLoopback: false, allowedPorts: DEFAULT_SFTP_PORTS };

export interface SftpOptions {
  /** Where connections may go (docs/decisions.md "Outbound connections"); DEFAULT_SFTP_POLICY when absent. */
  policy?: SftpConnectionPolicy;
  /** Resolves the host's name when connecting (dns.lookup by default; tests stand in their own). */
  resolve?: Resolver;
  /** Connecting, the SSH handshake and authentication must finish in this long; 20 s by default. */
  readyTimeoutMs?: number;
  /** The whole operation, connection included, must finish in this long, or the connection is destroyed; 60 s by default. */
  operationTimeoutMs?: number;
}

export interface UploadResult {
  remotePath: string;
  bytes: number;
}

/** A regular file found in a remote directory. */
export interface RemoteFile {
  name: string;
  /** The directory and the name, as given to downloadFile and removeFile. */
  remotePath: string;
  /** As the server announced them; undefined when it did not say. */
  size: number | undefined;
  modifiedAt: Date | undefined;
}

export type UploadContent = Buffer | string | AsyncIterable<Buffer | string>;

/** One connection's operations; every one is bounded by the session's operation timeout. */
export interface SftpSession {
  /** Writes `<fileName>.part` in the inbound directory, then renames it over `<fileName>`. */
  uploadFile(fileName: string, content: UploadContent): Promise<UploadResult>;
  /**
   * Every regular file of a directory, one server answer (READDIR) at a time until its end, in the server's
   * order: memory holds one answer, however long the directory. Stopping early closes the directory.
   */
  readDirectory(directory: string): AsyncGenerator<RemoteFile[]>;
  /** Moves a file into `directory` under its name, replacing a file of that name there. */
  moveFile(remotePath: string, directory: string): Promise<string>;
  /** The whole file, refused when it is (or turns out to be) larger than maxBytes. */
  downloadFile(remotePath: string, maxBytes: number): Promise<Buffer>;
  /** Removes a file; a file already gone counts as removed (a retried pickup). */
  removeFile(remotePath: string): Promise<void>;
}

export const DEFAULT_SFTP_READY_TIMEOUT_MS = 20_000;
export const DEFAULT_SFTP_OPERATION_TIMEOUT_MS = 60_000;
/** Below ssh2's own write limit for non-OpenSSH servers (34000 - 2048 bytes), so that no write is split in two. */
const WRITE_PIECE_BYTES = 31 * 1024;
/** Writes awaiting the server's answer at once: enough to keep a link busy, few enough to bound memory. */
const WRITES_IN_FLIGHT = 8;
const READ_PIECE_BYTES = 31 * 1024;
/** How long a finished connection may take to close politely before it is destroyed. */
const CLOSE_GRACE_MS = 2_000;
const PARTIAL_SUFFIX = '.part';
const MAX_FILE_NAME_BYTES = 255;
const MAX_REMOTE_PATH_BYTES = 1_024;
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

const { STATUS_CODE, OPEN_MODE } = ssh2.utils.sftp;

/** SFTP statuses that no retry will cure: the folder is missing or we may not write there. */
const PERMANENT_REMOTE_STATUSES: ReadonlySet<number> = new Set([STATUS_CODE.NO_SUCH_FILE, STATUS_CODE.PERMISSION_DENIED]);

/** Every failure of this module. Messages name the host and the step, never a password or a key. */
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

/** One rule a file name must pass; each names what it refuses, for the error message. */
interface FileNameRule {
  refuses: (name: string) => boolean;
  reason: string;
}

/* eslint-disable no-control-regex -- control characters are exactly what these find */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_CHARACTER_RUNS = /[\u0000-\u001f\u007f-\u009f]+/g;
/* eslint-enable no-control-regex */

const FILE_NAME_RULES: readonly FileNameRule[] = [
  { refuses: (name) => name.length === 0, reason: 'is empty' },
  { refuses: (name) => Buffer.byteLength(name) > MAX_FILE_NAME_BYTES, reason: `is longer than ${MAX_FILE_NAME_BYTES} bytes` },
  { refuses: (name) => name.includes('/') || name.includes('\\'), reason: 'contains a path separator' },
  { refuses: (name) => name.includes('..'), reason: 'contains ".."' },
  { refuses: (name) => CONTROL_CHARACTERS.test(name), reason: 'contains NUL or a control character' },
  { refuses: (name) => name === '.', reason: 'is "."' },
];

/** Throws `invalid_name` unless `fileName` is one plain name that cannot leave its directory. */
export function assertValidFileName(fileName: string): void {
  const broken = FILE_NAME_RULES.find((rule) => rule.refuses(fileName));
  if (broken) throw new SftpDeliveryError('invalid_name', `The file name ${JSON.stringify(fileName)} ${broken.reason}.`);
}

/** Throws `invalid_name` unless `path` is a remote path without `..` segments, backslashes or control characters. */
function assertValidRemotePath(path: string): void {
  const reason =
    path.length === 0
      ? 'is empty'
      : Buffer.byteLength(path) > MAX_REMOTE_PATH_BYTES
        ? `is longer than ${MAX_REMOTE_PATH_BYTES} bytes`
        : path.includes('\\')
          ? 'contains a backslash'
          : CONTROL_CHARACTERS.test(path)
            ? 'contains NUL or a control character'
            : path.split('/').includes('..')
              ? 'contains a ".." segment'
              : undefined;
  if (reason) throw new SftpDeliveryError('invalid_name', `The remote path ${JSON.stringify(path)} ${reason}.`);
}

function joinRemotePath(directory: string, fileName: string): string {
  const trimmed = directory.replace(/\/+$/, '');
  return directory.startsWith('/') && trimmed === '' ? `/${fileName}` : `${trimmed}/${fileName}`;
}

const FINGERPRINT_PATTERN = /^SHA256:([A-Za-z0-9+/]{43})=?$/;

/** The 32 digest bytes of a `SHA256:` fingerprint, or undefined when it is not one. */
function parseFingerprint(fingerprint: string): Buffer | undefined {
  const base64 = FINGERPRINT_PATTERN.exec(fingerprint.trim())?.[1];
  return base64 === undefined ? undefined : Buffer.from(base64, 'base64');
}

/** The `SHA256:` fingerprint of an SSH public key blob, as `ssh-keygen -lf` prints it. */
export function hostKeyFingerprint(publicKeyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(publicKeyBlob).digest('base64').replace(/=+$/, '')}`;
}

function assertValidTarget(target: SftpTarget): Buffer {
  if (!Number.isInteger(target.port) || target.port < 1 || target.port > 65_535) {
    throw new SftpDeliveryError('connection_failed', `The SFTP port ${target.port} is not a TCP port.`, { retryable: false });
  }
  const pinned = parseFingerprint(target.hostKeyFingerprint);
  if (!pinned) {
    throw new SftpDeliveryError(
      'host_key_mismatch',
      `The pinned host key fingerprint for ${target.host} is not in the SHA256:<base64> form ssh-keygen -lf prints.`,
    );
  }
  assertValidRemotePath(target.inboundDirectory);
  if (target.outboundDirectory !== undefined) assertValidRemotePath(target.outboundDirectory);
  return pinned;
}

/**
 * Only the configured method is offered: no `none` probe, no agent, no keyboard-interactive. The key is read
 * here, before connecting, so that a wrong passphrase is reported as such instead of as a refused login.
 */
function authMethods(target: SftpTarget, where: string): (PasswordAuthMethod | PublicKeyAuthMethod)[] {
  const { username, auth } = target;
  if ('password' in auth) return [{ type: 'password', username, password: auth.password }];
  const parsed = ssh2.utils.parseKey(auth.privateKey, auth.passphrase) as ParsedKey | ParsedKey[] | Error;
  // ssh2 returns a list for the OpenSSH format, which holds one key in practice.
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (key === undefined || key instanceof Error || !key.isPrivateKey()) {
    // ssh2's complaint is not repeated: it is about the key, and nothing of a key belongs in a message.
    throw new SftpDeliveryError('auth_failed', `The private key for ${where} could not be read (wrong passphrase, or not a PEM/OpenSSH private key).`);
  }
  return [{ type: 'publickey', username, key }];
}

/** The server's own words, shortened and on one line: a hostile server may send anything. */
function remoteText(error: Error): string {
  const line = withoutAddresses(error.message.replace(CONTROL_CHARACTER_RUNS, ' ').trim());
  return line.length > REMOTE_MESSAGE_CHARACTERS ? `${line.slice(0, REMOTE_MESSAGE_CHARACTERS)}…` : line;
}

/**
 * An SFTP request's failure. A numeric code is the server's STATUS answer; without one the request never got an
 * answer (ssh2 fails pending requests with "No response from server" when the channel closes).
 */
function requestError(error: Error & { code?: unknown }, step: string): SftpDeliveryError {
  if (typeof error.code !== 'number') return new SftpDeliveryError('connection_lost', `The connection was lost while ${step}.`);
  const status = error.code;
  return new SftpDeliveryError('remote_error', `The server refused ${step}: ${remoteText(error)} (SFTP status ${status}).`, {
    retryable: !PERMANENT_REMOTE_STATUSES.has(status),
    remoteStatus: status,
  });
}

type ErrorCallback = (error: Error | undefined | null) => void;

/** Wraps ssh2's callback style; a request that cannot even be sent (a closed channel) fails the same way. */
function request<T>(step: string, send: (callback: (error: Error | undefined | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    try {
      send((error, value) => (error ? reject(requestError(error, step)) : resolve(value)));
    } catch (error) {
      reject(requestError(error as Error, step));
    }
  });
}

function requestVoid(step: string, send: (callback: ErrorCallback) => void): Promise<void> {
  return request<void>(step, (callback) => send((error) => callback(error, undefined)));
}

/** Yields the content as Buffers, one chunk at a time: a 50 MB file is never held whole here. */
async function* contentChunks(content: UploadContent): AsyncGenerator<Buffer> {
  if (typeof content === 'string') {
    yield Buffer.from(content, 'utf8');
    return;
  }
  if (Buffer.isBuffer(content)) {
    yield content;
    return;
  }
  for await (const chunk of content) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}

/**
 * The operations of one SFTP channel. Each call first checks that the connection has not already failed (a
 * timeout, a drop), so that work still running after a failure stops at its next request.
 */
class Session implements SftpSession {
  readonly #sftp: SFTPWrapper;
  readonly #target: SftpTarget;
  readonly #failure: () => SftpDeliveryError | undefined;

  constructor(sftp: SFTPWrapper, target: SftpTarget, failure: () => SftpDeliveryError | undefined) {
    this.#sftp = sftp;
    this.#target = target;
    this.#failure = failure;
  }

  async uploadFile(fileName: string, content: UploadContent): Promise<UploadResult> {
    assertValidFileName(fileName);
    const remotePath = joinRemotePath(this.#target.inboundDirectory, fileName);
    const partialPath = `${remotePath}${PARTIAL_SUFFIX}`;
    // Truncating: a .part left by an earlier, interrupted attempt is overwritten.
    const handle = await this.#call<Buffer>(`opening ${partialPath} for writing`, (callback) =>
      this.#sftp.open(partialPath, OPEN_MODE.WRITE | OPEN_MODE.CREAT | OPEN_MODE.TRUNC, callback),
    );
    let bytes: number;
    try {
      bytes = await this.#writeAll(handle, contentChunks(content), partialPath);
    } catch (error) {
      await this.#closeQuietly(handle);
      throw error;
    }
    // The server answers CLOSE once the file is complete on its side; only then may it get its final name.
    await this.#callVoid(`closing ${partialPath}`, (callback) => this.#sftp.close(handle, callback));
    await this.#replace(partialPath, remotePath);
    return { remotePath, bytes };
  }

  async *readDirectory(directory: string): AsyncGenerator<RemoteFile[]> {
    assertValidRemotePath(directory);
    const handle = await this.#call<Buffer>(`opening the directory ${directory}`, (callback) => this.#sftp.opendir(directory, callback));
    try {
      for (;;) {
        const entries = await this.#readDirectory(handle, directory);
        // An empty answer that is not EOF would otherwise be asked again and again.
        if (entries === undefined || entries.length === 0) return;
        yield remoteFilesOf(entries, directory);
      }
    } finally {
      await this.#closeQuietly(handle);
    }
  }

  async moveFile(remotePath: string, directory: string): Promise<string> {
    assertValidRemotePath(remotePath);
    assertValidRemotePath(directory);
    const name = remotePath.slice(remotePath.lastIndexOf('/') + 1);
    assertValidFileName(name);
    const target = joinRemotePath(directory, name);
    await this.#replace(remotePath, target);
    return target;
  }

  async downloadFile(remotePath: string, maxBytes: number): Promise<Buffer> {
    assertValidRemotePath(remotePath);
    const handle = await this.#call<Buffer>(`opening ${remotePath} for reading`, (callback) => this.#sftp.open(remotePath, OPEN_MODE.READ, callback));
    try {
      const stats = await this.#call<Stats>(`reading the size of ${remotePath}`, (callback) => this.#sftp.fstat(handle, callback));
      if (stats.size > maxBytes) throw tooLarge(remotePath, maxBytes);
      // The announced size is only a hint: the reading itself stops one byte past the limit.
      const chunks: Buffer[] = [];
      let total = 0;
      for (;;) {
        const length = Math.min(READ_PIECE_BYTES, maxBytes + 1 - total);
        const chunk = await this.#read(handle, total, length, remotePath);
        if (chunk.length === 0) break;
        total += chunk.length;
        if (total > maxBytes) throw tooLarge(remotePath, maxBytes);
        chunks.push(chunk);
      }
      return Buffer.concat(chunks, total);
    } finally {
      await this.#closeQuietly(handle);
    }
  }

  async removeFile(remotePath: string): Promise<void> {
    assertValidRemotePath(remotePath);
    try {
      await this.#callVoid(`removing ${remotePath}`, (callback) => this.#sftp.unlink(remotePath, callback));
    } catch (error) {
      if (!isNoSuchFile(error)) throw error;
    }
  }

  /** Keeps up to WRITES_IN_FLIGHT writes outstanding, so that throughput is not one round trip per 31 KiB. */
  async #writeAll(handle: Buffer, chunks: AsyncIterable<Buffer>, path: string): Promise<number> {
    const pending = new Set<Promise<void>>();
    const failures: unknown[] = [];
    let position = 0;
    const settleOne = async () => {
      await Promise.race(pending);
      if (failures.length > 0) throw failures[0];
    };
    for await (const chunk of chunks) {
      for (let offset = 0; offset < chunk.length; offset += WRITE_PIECE_BYTES) {
        const piece = chunk.subarray(offset, offset + WRITE_PIECE_BYTES);
        const write: Promise<void> = this.#callVoid(`writing ${path}`, (callback) => this.#sftp.write(handle, piece, 0, piece.length, position, callback)).then(
          () => void pending.delete(write),
          (error: unknown) => {
            pending.delete(write);
            failures.push(error);
          },
        );
        pending.add(write);
        position += piece.length;
        while (pending.size >= WRITES_IN_FLIGHT) await settleOne();
      }
      if (failures.length > 0) throw failures[0];
    }
    while (pending.size > 0) await settleOne();
    return position;
  }

  /** posix-rename replaces the target atomically; plain SFTP v3 RENAME refuses an existing target, so it is removed first. */
  async #replace(from: string, to: string): Promise<void> {
    const renamed = await this.#tryPosixRename(from, to);
    if (renamed) return;
    await this.removeFile(to);
    await this.#callVoid(`renaming ${from} to ${to}`, (callback) => this.#sftp.rename(from, to, callback));
  }

  /** False when the server does not offer posix-rename@openssh.com (ssh2 then throws before sending anything). */
  async #tryPosixRename(from: string, to: string): Promise<boolean> {
    let offered = true;
    await this.#callVoid(`renaming ${from} to ${to}`, (callback) => {
      try {
        this.#sftp.ext_openssh_rename(from, to, callback);
      } catch {
        offered = false;
        callback(null);
      }
    });
    return offered;
  }

  async #readDirectory(handle: Buffer, directory: string): Promise<FileEntryWithStats[] | undefined> {
    try {
      return await this.#call<FileEntryWithStats[]>(`listing ${directory}`, (callback) => this.#sftp.readdir(handle, callback));
    } catch (error) {
      if (error instanceof SftpDeliveryError && error.remoteStatus === STATUS_CODE.EOF) return undefined;
      throw error;
    }
  }

  #read(handle: Buffer, position: number, length: number, path: string): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    return this.#call(`reading ${path}`, (callback) =>
      this.#sftp.read(handle, buffer, 0, length, position, (error, bytesRead) => callback(error, buffer.subarray(0, bytesRead))),
    );
  }

  async #closeQuietly(handle: Buffer): Promise<void> {
    if (this.#failure()) return;
    await requestVoid('closing a handle', (callback) => this.#sftp.close(handle, callback)).catch(() => undefined);
  }

  #assertAlive(): void {
    const failure = this.#failure();
    if (failure) throw failure;
  }

  async #call<T>(step: string, send: (callback: (error: Error | undefined | null, value: T) => void) => void): Promise<T> {
    this.#assertAlive();
    return request(step, send);
  }

  async #callVoid(step: string, send: (callback: ErrorCallback) => void): Promise<void> {
    this.#assertAlive();
    return requestVoid(step, send);
  }
}

/** The regular files of one READDIR answer; names that could not be ours to fetch (a slash, "..", control characters) are skipped, not trusted. */
function remoteFilesOf(entries: readonly FileEntryWithStats[], directory: string): RemoteFile[] {
  const files: RemoteFile[] = [];
  for (const entry of entries) {
    if (!isRegularFile(entry.attrs) || FILE_NAME_RULES.some((rule) => rule.refuses(entry.filename))) continue;
    const { size, mtime } = entry.attrs as Partial<Stats>;
    files.push({
      name: entry.filename,
      remotePath: joinRemotePath(directory, entry.filename),
      size,
      modifiedAt: mtime === undefined ? undefined : new Date(mtime * 1000),
    });
  }
  return files;
}

/** A server may leave out any attribute; an entry without a mode is taken for a file (downloading will tell). */
function isRegularFile(attributes: Stats): boolean {
  return (attributes as Partial<Stats>).mode === undefined || attributes.isFile();
}

function tooLarge(remotePath: string, maxBytes: number): SftpDeliveryError {
  return new SftpDeliveryError('file_too_large', `${remotePath} is larger than the ${maxBytes} bytes allowed.`);
}

function isNoSuchFile(error: unknown): boolean {
  return error instanceof SftpDeliveryError && error.remoteStatus === STATUS_CODE.NO_SUCH_FILE;
}

/** What is known about a connection when it fails, to tell which failure it was. */
interface ConnectionState {
  hostKeyRejected: boolean;
  authenticated: boolean;
}

/** Turns an error ssh2's Client emitted into ours; ssh2 marks where it failed in `level`. */
function connectionError(error: Error & { level?: string }, state: ConnectionState, where: string): SftpDeliveryError {
  if (state.hostKeyRejected) {
    return new SftpDeliveryError('host_key_mismatch', `The host key of ${where} does not match the pinned fingerprint; nothing was sent.`);
  }
  if (error.level === 'client-authentication') return new SftpDeliveryError('auth_failed', `${where} refused the credentials.`);
  if (error.level === 'client-timeout') return new SftpDeliveryError('timeout', `${where} did not complete the SSH handshake in time.`);
  if (error.level === 'client-socket' && !state.authenticated) {
    return new SftpDeliveryError('connection_failed', `Could not connect to ${where}: ${socketText(error)}.`);
  }
  // The text may be the server's own (a DISCONNECT reason), so it is cleaned like any server text.
  return state.authenticated
    ? new SftpDeliveryError('connection_lost', `The connection to ${where} was lost: ${remoteText(error)}`)
    : new SftpDeliveryError('connection_failed', `Could not connect to ${where}: ${remoteText(error)}`);
}

/** What the network said, in words that name no address (Node's text carries the one connected to). */
const SOCKET_FAILURES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
};

function socketText(error: Error & { code?: unknown }): string {
  const code = typeof error.code === 'string' ? error.code : undefined;
  return (code && SOCKET_FAILURES[code]) ?? (code ? `network error ${code}` : remoteText(error));
}

/**
 * The address to connect to: the port must be one SFTP is allowed on, and the host must pass the outbound
 * address policy, every address of a name checked. ssh2 is given that address, never the name again, so a DNS
 * answer that changes after the check cannot move the connection. A refusal names the host as the profile has
 * it, never an address it resolved to.
 */
async function checkedAddress(target: SftpTarget, where: string, options: SftpOptions): Promise<ResolvedAddress> {
  const policy = options.policy ?? DEFAULT_SFTP_POLICY;
  if (!isAllowedPort(policy.allowedPorts, target.port)) {
    throw new SftpDeliveryError('address_refused', `Refused to connect to ${where}: SFTP may use port ${describePorts(policy.allowedPorts)} only.`);
  }
  try {
    return await resolveOutboundHost(target.host, policy, options.resolve);
  } catch (error) {
    const failure = error as Error & { code?: string };
    if (failure.code === REFUSED_ADDRESS) throw new SftpDeliveryError('address_refused', failure.message);
    throw new SftpDeliveryError('connection_failed', failure.message);
  }
}

/**
 * Opens one SSH connection and SFTP channel to the target, runs `work` with it, and closes it in every case.
 *
 * The host and port pass the outbound address policy first (checkedAddress); nothing is connected to when they
 * do not. The server's host key is compared with the pinned fingerprint during key exchange, before any
 * credential is sent. Everything (connecting included) must finish within the operation timeout; past it the
 * connection is destroyed and a retryable `timeout` is thrown, so that a silent server never holds a worker.
 */
export async function withSftpSession<T>(target: SftpTarget, work: (session: SftpSession) => Promise<T>, options: SftpOptions = {}): Promise<T> {
  const pinned = assertValidTarget(target);
  const operationTimeoutMs = options.operationTimeoutMs ?? DEFAULT_SFTP_OPERATION_TIMEOUT_MS;
  const readyTimeoutMs = Math.min(options.readyTimeoutMs ?? DEFAULT_SFTP_READY_TIMEOUT_MS, operationTimeoutMs);
  const where = `${target.host}:${target.port}`;
  const state: ConnectionState = { hostKeyRejected: false, authenticated: false };
  const config: ConnectConfig = {
    host: target.host,
    port: target.port,
    username: target.username,
    readyTimeout: readyTimeoutMs,
    authHandler: authMethods(target, where),
    hostVerifier: (key: Buffer): boolean => {
      const presented = createHash('sha256').update(key).digest();
      const matches = presented.length === pinned.length && timingSafeEqual(presented, pinned);
      state.hostKeyRejected = !matches;
      return matches;
    },
  };

  const client = new ssh2.Client();

  let failure: SftpDeliveryError | undefined;
  let rejectFailed: (error: SftpDeliveryError) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => {
    rejectFailed = reject;
  });
  failed.catch(() => undefined);
  const fail = (error: SftpDeliveryError) => {
    if (failure) return;
    failure = error;
    rejectFailed(error);
    client.destroy();
  };

  let settled = false;
  const timer = setTimeout(
    () => fail(new SftpDeliveryError('timeout', `${where} did not finish the operation within ${operationTimeoutMs / 1000} s.`)),
    operationTimeoutMs,
  );
  // ssh2 emits 'error' until the socket is gone, so the listener stays for the client's whole life.
  client.on('error', (error: Error & { level?: string }) => fail(connectionError(error, state, where)));
  client.on('close', () => {
    if (settled) return;
    fail(
      state.authenticated
        ? new SftpDeliveryError('connection_lost', `${where} closed the connection.`)
        : new SftpDeliveryError('connection_failed', `${where} closed the connection during the handshake.`),
    );
  });

  try {
    config.host = (await Promise.race([checkedAddress(target, where, options), failed])).address;
    await Promise.race([connect(client, config, where), failed]);
    state.authenticated = true;
    const sftp = await Promise.race([
      new Promise<SFTPWrapper>((resolve, reject) =>
        client.sftp((error, channel) => (error ? reject(requestError(error, 'opening the SFTP channel')) : resolve(channel))),
      ),
      failed,
    ]);
    const working = work(new Session(sftp, target, () => failure));
    working.catch(() => undefined);
    return await Promise.race([working, failed]);
  } catch (error) {
    // A request that failed because the connection went away reports the connection's failure.
    throw failure ?? error;
  } finally {
    settled = true;
    clearTimeout(timer);
    closeConnection(client, failure !== undefined);
  }
}

function connect(client: Client, config: ConnectConfig, where: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    client.once('ready', () => resolve());
    try {
      client.connect(config);
      // SFTP is request and answer: Nagle's algorithm with delayed ACKs would add ~40 ms to every small request.
      client.setNoDelay(true);
    } catch (error) {
      // The key is already parsed (authMethods), so what is left to refuse is the connection settings themselves.
      reject(new SftpDeliveryError('connection_failed', `Could not start a connection to ${where}: ${(error as Error).message}`, { retryable: false }));
    }
  });
}

function closeConnection(client: Client, failed: boolean): void {
  if (failed) {
    client.destroy();
    return;
  }
  const destroyLater = setTimeout(() => client.destroy(), CLOSE_GRACE_MS);
  destroyLater.unref();
  client.once('close', () => clearTimeout(destroyLater));
  client.end();
}

/** Uploads one file atomically: see SftpSession.uploadFile. A resend of the same name replaces the earlier file. */
export async function uploadFile(target: SftpTarget, fileName: string, content: UploadContent, options?: SftpOptions): Promise<UploadResult> {
  assertValidFileName(fileName);
  return withSftpSession(target, (session) => session.uploadFile(fileName, content), options);
}

/** Downloads a whole file; a server offering more than maxBytes is refused (it may be hostile). */
export async function downloadFile(target: SftpTarget, remotePath: string, maxBytes: number, options?: SftpOptions): Promise<Buffer> {
  assertValidRemotePath(remotePath);
  return withSftpSession(target, (session) => session.downloadFile(remotePath, maxBytes), options);
}

export async function removeFile(target: SftpTarget, remotePath: string, options?: SftpOptions): Promise<void> {
  assertValidRemotePath(remotePath);
  return withSftpSession(target, (session) => session.removeFile(remotePath), options);
}
