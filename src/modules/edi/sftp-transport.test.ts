import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  generateEd25519KeyPair,
  publicKeyFingerprint,
  SFTP_TEST_USER,
  startSftpTestServer,
  type SftpTestServer,
  type SftpTestServerOptions,
} from '../../../test/helpers/sftp-server.ts';
import * as transport from './sftp-transport.ts';
import { SftpDeliveryError } from './sftp-errors.ts';
import type { RemoteFile, SftpSession, UploadContent } from './sftp-session.ts';
import type { SftpOptions, SftpTarget } from './sftp-transport.ts';

/**
 * The test server listens on loopback, on a port the system picks: the development switch (loopback allowed,
 * never private addresses) and any port. Every call below goes through it unless a test gives its own policy.
 */
const DEVELOPMENT: SftpOptions = { policy: { allowLoopback: true, allowedPorts: [[1, 65_535]] } };
const withDevelopment = <T extends SftpOptions>(options?: T): T => ({ ...DEVELOPMENT, ...options }) as T;
const uploadFile = (target: SftpTarget, fileName: string, content: UploadContent, options?: SftpOptions) =>
  transport.uploadFile(target, fileName, content, withDevelopment(options));
const downloadFile = (target: SftpTarget, remotePath: string, maxBytes: number, options?: SftpOptions) =>
  transport.downloadFile(target, remotePath, maxBytes, withDevelopment(options));
const removeFile = (target: SftpTarget, remotePath: string, options?: SftpOptions) => transport.removeFile(target, remotePath, withDevelopment(options));
const withSftpSession = <T>(target: SftpTarget, work: (session: SftpSession) => Promise<T>, options?: SftpOptions) =>
  transport.withSftpSession(target, work, withDevelopment(options));

/** Every regular file of a directory, read to its end. */
async function everyFile(session: SftpSession, directory: string): Promise<RemoteFile[]> {
  const files: RemoteFile[] = [];
  for await (const batch of session.readDirectory(directory)) files.push(...batch);
  return files;
}

const X12_834 = 'ISA*00*          *00*          *ZZ*SENDER         *ZZ*CARRIER        *250101*1200*^*00501*000000001*0*P*:~\nIEA*1*000000001~\n';

const servers: SftpTestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function startServer(options?: SftpTestServerOptions): Promise<SftpTestServer> {
  const server = await startSftpTestServer(options);
  servers.push(server);
  return server;
}

function targetFor(server: SftpTestServer, overrides: Partial<SftpTarget> = {}): SftpTarget {
  return {
    host: server.host,
    port: server.port,
    username: SFTP_TEST_USER.username,
    hostKeyFingerprint: server.hostKeyFingerprint,
    auth: { password: SFTP_TEST_USER.password },
    inboundDirectory: '/inbound',
    outboundDirectory: '/outbound',
    ...overrides,
  };
}

/** The error a promise rejects with (failing the test when it resolves). */
async function failureOf(promise: Promise<unknown>): Promise<SftpDeliveryError> {
  const error: unknown = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(SftpDeliveryError);
  return error as SftpDeliveryError;
}

/** Polls until `condition` holds (a connection closes a moment after the call returns). */
async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `megabytes` of deterministic, non-repeating-per-chunk bytes in 64 KiB chunks, and their SHA-256. */
function generatedContent(megabytes: number): { chunks: () => AsyncGenerator<Buffer>; bytes: number; sha256: string } {
  const chunkBytes = 64 * 1024;
  const count = (megabytes * 1024 * 1024) / chunkBytes;
  const chunkAt = (index: number) => {
    const chunk = Buffer.alloc(chunkBytes, index % 251);
    chunk.writeUInt32BE(index, 0);
    return chunk;
  };
  const hash = createHash('sha256');
  for (let index = 0; index < count; index++) hash.update(chunkAt(index));
  return {
    bytes: count * chunkBytes,
    sha256: hash.digest('hex'),
    chunks: async function* () {
      for (let index = 0; index < count; index++) yield chunkAt(index);
    },
  };
}

const sha256 = (data: Buffer | undefined) =>
  createHash('sha256')
    .update(data ?? Buffer.alloc(0))
    .digest('hex');

describe('uploadFile', () => {
  it('when the password is right, then the file arrives byte for byte under its name and no .part is left', async () => {
    const server = await startServer();

    const result = await uploadFile(targetFor(server), 'ENR_20250101.834', X12_834);

    expect(result).toEqual({ remotePath: '/inbound/ENR_20250101.834', bytes: Buffer.byteLength(X12_834) });
    expect(server.file('/inbound/ENR_20250101.834')?.toString('utf8')).toBe(X12_834);
    expect([...server.files.keys()]).toEqual(['/inbound/ENR_20250101.834']);
    expect(server.renames).toEqual([{ via: 'posix-rename', from: '/inbound/ENR_20250101.834.part', to: '/inbound/ENR_20250101.834' }]);
    expect(server.authAttempts).toEqual([{ username: SFTP_TEST_USER.username, method: 'password', accepted: true }]);
    await waitUntil(() => server.openConnections === 0);
  });

  it('when authenticating with an encrypted private key, then the upload succeeds by public key alone', async () => {
    const clientKey = generateEd25519KeyPair({ passphrase: 'key passphrase' });
    const server = await startServer({ users: [{ username: 'key-user', publicKey: clientKey.public }] });
    const content = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0]);

    const result = await uploadFile(
      targetFor(server, { username: 'key-user', auth: { privateKey: clientKey.private, passphrase: 'key passphrase' } }),
      'binary.834',
      content,
    );

    expect(result.bytes).toBe(content.length);
    expect(server.file('/inbound/binary.834')?.equals(content)).toBe(true);
    expect(server.authAttempts.map((attempt) => attempt.method)).not.toContain('password');
    expect(server.authAttempts.at(-1)).toEqual({ username: 'key-user', method: 'publickey', accepted: true });
  });

  it('when 20 MB stream from an async generator, then the whole file arrives intact', async () => {
    const server = await startServer();
    const content = generatedContent(20);

    const result = await uploadFile(targetFor(server), 'large.834', content.chunks());

    expect(result.bytes).toBe(content.bytes);
    expect(server.file('/inbound/large.834')?.length).toBe(content.bytes);
    expect(sha256(server.file('/inbound/large.834'))).toBe(content.sha256);
    expect(server.files.has('/inbound/large.834.part')).toBe(false);
  });

  it('when the same file name is sent again, then the new content replaces the old', async () => {
    const server = await startServer();
    const target = targetFor(server);

    await uploadFile(target, 'resend.834', 'first version, somewhat longer');
    await uploadFile(target, 'resend.834', 'second version');

    expect(server.file('/inbound/resend.834')?.toString('utf8')).toBe('second version');
    expect([...server.files.keys()]).toEqual(['/inbound/resend.834']);
  });

  it('when the server does not offer posix-rename, then a resend removes the old file and renames', async () => {
    const server = await startServer({ advertisePosixRename: false });
    const target = targetFor(server);

    await uploadFile(target, 'resend.834', 'first version');
    await uploadFile(target, 'resend.834', 'second version');

    expect(server.file('/inbound/resend.834')?.toString('utf8')).toBe('second version');
    expect(server.renames.map((rename) => rename.via)).toEqual(['rename', 'rename']);
    expect([...server.files.keys()]).toEqual(['/inbound/resend.834']);
  });

  it('when the pinned fingerprint is not the server key, then it refuses before authenticating and sends no file', async () => {
    const server = await startServer();
    const someoneElse = publicKeyFingerprint(generateEd25519KeyPair().public);

    const error = await failureOf(uploadFile(targetFor(server, { hostKeyFingerprint: someoneElse }), 'ENR.834', X12_834));

    expect(error.code).toBe('host_key_mismatch');
    expect(error.retryable).toBe(false);
    expect(server.connectionCount).toBe(1);
    expect(server.authAttempts).toEqual([]);
    expect(server.files.size).toBe(0);
    expect(error.message).not.toContain(SFTP_TEST_USER.password);
    await waitUntil(() => server.openConnections === 0);
  });

  it('when the password is wrong, then auth_failed, not retryable, and the password is in no message', async () => {
    const server = await startServer();
    const wrongPassword = 'Tr0ub4dor&3-wrong';

    const error = await failureOf(uploadFile(targetFor(server, { auth: { password: wrongPassword } }), 'ENR.834', X12_834));

    expect(error.code).toBe('auth_failed');
    expect(error.retryable).toBe(false);
    expect(`${error.message} ${JSON.stringify(error)} ${error.stack}`).not.toContain(wrongPassword);
    expect(server.authAttempts).toEqual([{ username: SFTP_TEST_USER.username, method: 'password', accepted: false }]);
    expect(server.files.size).toBe(0);
    await waitUntil(() => server.openConnections === 0);
  });

  it('when the private key cannot be decrypted, then auth_failed without the key in the message', async () => {
    const server = await startServer();
    const clientKey = generateEd25519KeyPair({ passphrase: 'right' });

    const error = await failureOf(uploadFile(targetFor(server, { auth: { privateKey: clientKey.private, passphrase: 'wrong' } }), 'ENR.834', X12_834));

    expect(error.code).toBe('auth_failed');
    expect(error.message).not.toContain(clientKey.private.split('\n')[1]);
    expect(server.connectionCount).toBe(0);
  });

  it('when the connection drops mid-upload, then a retryable error, no final file, and the retry delivers it whole', async () => {
    const server = await startServer();
    const target = targetFor(server);
    const content = generatedContent(1);
    server.dropConnectionAfterBytes(256 * 1024);

    const error = await failureOf(uploadFile(target, 'ENR.834', content.chunks()));

    expect(error.code).toBe('connection_lost');
    expect(error.retryable).toBe(true);
    expect(server.files.has('/inbound/ENR.834')).toBe(false);
    expect(server.files.has('/inbound/ENR.834.part')).toBe(true);

    const retry = await uploadFile(target, 'ENR.834', content.chunks());

    expect(retry.bytes).toBe(content.bytes);
    expect(sha256(server.file('/inbound/ENR.834'))).toBe(content.sha256);
    expect(server.files.has('/inbound/ENR.834.part')).toBe(false);
  });

  it('when the connection is refused, then connection_failed is retryable and the next attempt succeeds', async () => {
    const server = await startServer();
    server.refuseConnections(1);

    const error = await failureOf(uploadFile(targetFor(server), 'ENR.834', X12_834));

    expect(error.code).toBe('connection_failed');
    expect(error.retryable).toBe(true);
    await uploadFile(targetFor(server), 'ENR.834', X12_834);
    expect(server.file('/inbound/ENR.834')?.toString('utf8')).toBe(X12_834);
  });

  it('when the server never answers the handshake, then timeout within the bound and the connection is closed', async () => {
    const server = await startServer();
    server.neverAnswer('handshake');
    const started = Date.now();

    const error = await failureOf(uploadFile(targetFor(server), 'ENR.834', X12_834, { operationTimeoutMs: 500 }));

    expect(error.code).toBe('timeout');
    expect(error.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_500);
    await waitUntil(() => server.openConnections === 0);
  });

  it('when the server never answers SFTP requests, then timeout within the bound and the connection is closed', async () => {
    const server = await startServer();
    server.neverAnswer('sftp');
    const started = Date.now();

    const error = await failureOf(uploadFile(targetFor(server), 'ENR.834', X12_834, { operationTimeoutMs: 700 }));

    expect(error.code).toBe('timeout');
    expect(error.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(server.authAttempts.at(-1)?.accepted).toBe(true);
    await waitUntil(() => server.openConnections === 0);
  });

  it('when the inbound directory does not exist, then a remote_error that is not retryable', async () => {
    const server = await startServer();

    const error = await failureOf(uploadFile(targetFor(server, { inboundDirectory: '/missing' }), 'ENR.834', X12_834));

    expect(error.code).toBe('remote_error');
    expect(error.retryable).toBe(false);
  });

  it.each([
    ['a path separator', '../etc/passwd'],
    ['a slash', 'inbound/ENR.834'],
    ['a backslash', 'ENR\\834'],
    ['dot-dot', '..'],
    ['dot-dot inside', 'ENR..834'],
    ['NUL', 'ENR\u0000.834'],
    ['a newline', 'ENR\n.834'],
    ['a C1 control character', 'ENR\u0085.834'],
    ['nothing', ''],
    ['too many bytes', 'é'.repeat(128)],
  ])('when the file name has %s, then invalid_name before connecting', async (_label, fileName) => {
    const server = await startServer();

    const error = await failureOf(uploadFile(targetFor(server), fileName, X12_834));

    expect(error.code).toBe('invalid_name');
    expect(error.retryable).toBe(false);
    expect(server.connectionCount).toBe(0);
  });
});

describe('acknowledgement pickup', () => {
  const ack999 = 'ISA*00*~ST*999*0001*005010X231A1~AK1*BE*1*005010X220A1~SE*4*0001~\n';

  it('when a 999 is in the outbound folder, then it is listed, downloaded and removed', async () => {
    const server = await startServer();
    server.putFile('/outbound/ACK_0001.999', ack999);
    const ta1 = 'ISA*00*~TA1*000000001*250101*1200*A*000~';
    server.putFile('/outbound/TA1_0001.ta1', ta1);
    server.putFile('/inbound/ours.834', X12_834);
    const target = targetFor(server);

    const listed = (await withSftpSession(target, (session) => everyFile(session, '/outbound'))).sort((a, b) => (a.name < b.name ? -1 : 1));
    const downloaded = await downloadFile(target, '/outbound/ACK_0001.999', 1_024);
    await removeFile(target, '/outbound/ACK_0001.999');

    expect(listed.map(({ name, remotePath, size }) => ({ name, remotePath, size }))).toEqual([
      { name: 'ACK_0001.999', remotePath: '/outbound/ACK_0001.999', size: Buffer.byteLength(ack999) },
      { name: 'TA1_0001.ta1', remotePath: '/outbound/TA1_0001.ta1', size: ta1.length },
    ]);
    expect(listed[0]?.modifiedAt).toBeInstanceOf(Date);
    expect(downloaded.toString('utf8')).toBe(ack999);
    expect(server.files.has('/outbound/ACK_0001.999')).toBe(false);
    expect(server.files.has('/outbound/TA1_0001.ta1')).toBe(true);
  });

  it('when list, download and remove share one session, then one connection serves them all', async () => {
    const server = await startServer();
    for (let index = 0; index < 150; index++) server.putFile(`/outbound/ACK_${String(index).padStart(4, '0')}.999`, `${ack999}${index}`);

    const picked = await withSftpSession(targetFor(server), async (session) => {
      const files = await everyFile(session, '/outbound');
      const contents: string[] = [];
      for (const file of files) {
        contents.push((await session.downloadFile(file.remotePath, 1_024)).toString('utf8'));
        await session.removeFile(file.remotePath);
      }
      return contents;
    });

    expect(picked).toHaveLength(150);
    expect(picked[149]).toBe(`${ack999}149`);
    expect(server.files.size).toBe(0);
    expect(server.connectionCount).toBe(1);
  });

  it('when a directory holds 2,500 files, then readDirectory yields them all, one server answer at a time, until its end', async () => {
    const server = await startServer();
    for (let index = 0; index < 2_500; index++) server.putFile(`/outbound/R_${index}.txt`, `${index}`);

    const batches = await withSftpSession(targetFor(server), async (session) => {
      const sizes: number[] = [];
      const names = new Set<string>();
      for await (const batch of session.readDirectory('/outbound')) {
        sizes.push(batch.length);
        for (const file of batch) names.add(file.name);
      }
      return { sizes, names };
    });

    expect(batches.names.size).toBe(2_500);
    expect(batches.names.has('R_2499.txt')).toBe(true);
    // The test server answers READDIR with 100 names at a time.
    expect(Math.max(...batches.sizes)).toBeLessThanOrEqual(100);
  });

  it('when reading a directory stops early, then its handle is closed and the session goes on', async () => {
    const server = await startServer();
    for (let index = 0; index < 300; index++) server.putFile(`/outbound/R_${index}.txt`, `${index}`);

    const first = await withSftpSession(targetFor(server), async (session) => {
      for await (const batch of session.readDirectory('/outbound')) return batch[0]?.name;
      return undefined;
    });

    expect(first).toBe('R_0.txt');
  });

  it('when a file is moved to another directory, then it is there under its name, replacing one of that name', async () => {
    const server = await startServer({ directories: ['/inbound', '/outbound', '/archive'] });
    server.putFile('/outbound/ACK_1.999', ack999);
    server.putFile('/archive/ACK_1.999', 'an older copy');

    const moved = await withSftpSession(targetFor(server), (session) => session.moveFile('/outbound/ACK_1.999', '/archive/'));

    expect(moved).toBe('/archive/ACK_1.999');
    expect(server.file('/outbound/ACK_1.999')).toBeUndefined();
    expect(server.file('/archive/ACK_1.999')?.toString()).toBe(ack999);
  });

  it('when a file is larger than maxBytes, then file_too_large and it stays on the server', async () => {
    const server = await startServer();
    server.putFile('/outbound/huge.999', Buffer.alloc(10_000, 'A'));

    const error = await failureOf(downloadFile(targetFor(server), '/outbound/huge.999', 9_999));

    expect(error.code).toBe('file_too_large');
    expect(error.retryable).toBe(false);
    expect(server.files.has('/outbound/huge.999')).toBe(true);
    expect((await downloadFile(targetFor(server), '/outbound/huge.999', 10_000)).length).toBe(10_000);
  });

  it('when removing a file already gone, then it counts as removed', async () => {
    const server = await startServer();

    await expect(removeFile(targetFor(server), '/outbound/gone.999')).resolves.toBeUndefined();
  });

  it.each([['/outbound/../inbound/ours.834'], ['/outbound/a\u0000b'], ['..\\secret']])('when the remote path is %j, then invalid_name', async (remotePath) => {
    const server = await startServer();

    const error = await failureOf(downloadFile(targetFor(server), remotePath, 1_024));

    expect(error.code).toBe('invalid_name');
    expect(server.connectionCount).toBe(0);
  });
});

describe('the outbound address policy', () => {
  const PRODUCTION: SftpOptions = { policy: transport.DEFAULT_SFTP_POLICY };
  const DEVELOPMENT_ON_SFTP_PORTS: SftpOptions = { policy: { allowLoopback: true, allowedPorts: transport.DEFAULT_SFTP_POLICY.allowedPorts } };

  it.each([
    ['127.0.0.1', 'it is not a public internet address'],
    ['::1', 'it is not a public internet address'],
    ['[::ffff:127.0.0.1]', 'it is not a public internet address'],
    ['127.1', 'it is not a public internet address'],
    ['localhost', 'it does not resolve to public internet addresses only'],
  ])('when the host is %s and loopback is not allowed, then address_refused and nothing is connected to', async (host, why) => {
    const server = await startServer();

    const error = await failureOf(transport.uploadFile({ ...targetFor(server), host, port: 22 }, 'ENR.834', X12_834, PRODUCTION));

    expect(error.code).toBe('address_refused');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(`Refused to connect to ${host}: ${why}.`);
    expect(server.connectionCount).toBe(0);
  });

  it.each(['10.0.0.1', '169.254.169.254', '0.0.0.0', '[fe80::1]', '100.64.0.1', 'metadata.google.internal', 'metadata'])(
    'when the host is %s, then even the development switch refuses it before connecting',
    async (host) => {
      const error = await failureOf(transport.uploadFile({ ...targetFor(await startServer()), host, port: 22 }, 'ENR.834', X12_834, DEVELOPMENT));

      expect(error.code).toBe('address_refused');
      expect(error.message).toMatch(/^Refused to connect to /);
    },
  );

  it('when a name resolves to loopback and loopback is not allowed, then it is refused without naming the address and the server sees nothing', async () => {
    const server = await startServer();
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];

    const error = await failureOf(
      transport.uploadFile({ ...targetFor(server), host: 'sftp.carrier.example' }, 'ENR.834', X12_834, {
        policy: { allowLoopback: false, allowedPorts: [[1, 65_535]] },
        resolve,
      }),
    );

    expect(error.code).toBe('address_refused');
    expect(error.message).toBe('Refused to connect to sftp.carrier.example: it does not resolve to public internet addresses only.');
    expect(error.message).not.toContain('127.0.0.1');
    expect(server.connectionCount).toBe(0);
    expect(server.files.size).toBe(0);
  });

  it('when a name resolves to an allowed address, then ssh2 connects to that address (pinned), not to the name again', async () => {
    const server = await startServer();
    let lookups = 0;
    const resolve = async () => {
      lookups += 1;
      return [{ address: '127.0.0.1', family: 4 }];
    };

    // The name exists in no DNS: had ssh2 been given it, it would have failed to resolve it.
    await transport.uploadFile({ ...targetFor(server), host: 'sftp.carrier.invalid' }, 'ENR.834', X12_834, { ...DEVELOPMENT, resolve });

    expect(server.file('/inbound/ENR.834')?.toString('utf8')).toBe(X12_834);
    expect(lookups).toBe(1);
  });

  it('when the port is not an allowed SFTP port, then address_refused naming the allowed ports, and nothing is connected to', async () => {
    const server = await startServer();

    const error = await failureOf(transport.uploadFile(targetFor(server), 'ENR.834', X12_834, DEVELOPMENT_ON_SFTP_PORTS));

    expect(error.code).toBe('address_refused');
    expect(error.message).toBe(`Refused to connect to 127.0.0.1:${server.port}: SFTP may use port 22 or 2222 only.`);
    expect(server.connectionCount).toBe(0);
  });

  it('when a pinned key does not match on a refused address, then the refusal is what is reported: no connection, no host key seen', async () => {
    const server = await startServer();
    const someoneElse = publicKeyFingerprint(generateEd25519KeyPair().public);

    const error = await failureOf(
      transport.uploadFile({ ...targetFor(server), hostKeyFingerprint: someoneElse }, 'ENR.834', X12_834, {
        policy: { allowLoopback: false, allowedPorts: [[1, 65_535]] },
      }),
    );

    expect(error.code).toBe('address_refused');
    expect(server.connectionCount).toBe(0);
  });

  it('when the connection is refused by the network, then the message names the host as given and no address', async () => {
    const server = await startServer();
    const target = { ...targetFor(server), host: 'localhost' };
    const port = server.port;
    await server.close();

    const error = await failureOf(transport.uploadFile(target, 'ENR.834', X12_834, DEVELOPMENT));

    expect(error.code).toBe('connection_failed');
    expect(error.message).toBe(`Could not connect to localhost:${port}: the connection was refused.`);
  });
});
