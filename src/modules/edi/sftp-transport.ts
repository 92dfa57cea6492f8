// Connecting to a carrier's SFTP server: the outbound address and port policy, the pinned host key, the credentials
// offered, timeouts, and closing in every case. The channel's operations are sftp-session.ts's.
import { createHash, timingSafeEqual } from 'node:crypto';
import ssh2, { type Client, type ConnectConfig, type ParsedKey, type PasswordAuthMethod, type PublicKeyAuthMethod, type SFTPWrapper } from 'ssh2';
import {
  DEFAULT_SFTP_PORTS,
  REFUSED_ADDRESS,
  describePorts,
  isAllowedPort,
  resolveOutboundHost,
  type OutboundPolicy,
  type PortRanges,
  type ResolvedAddress,
  type Resolver,
} from '../../shared/outbound-address.ts';
import { SftpDeliveryError, remoteText, requestError } from './sftp-errors.ts';
import { assertValidFileName, assertValidRemotePath } from './sftp-remote-names.ts';
import { Session, type SftpSession, type UploadContent, type UploadResult } from './sftp-session.ts';

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

export const DEFAULT_SFTP_READY_TIMEOUT_MS = 20_000;
export const DEFAULT_SFTP_OPERATION_TIMEOUT_MS = 60_000;
/** How long a finished connection may take to close politely before it is destroyed. */
const CLOSE_GRACE_MS = 2_000;

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
