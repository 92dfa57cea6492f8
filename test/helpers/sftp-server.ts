import type { EventEmitter } from 'node:events';
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { posix } from 'node:path';
import ssh2, { type Attributes, type AuthContext, type Connection, type FileEntry, type ParsedKey, type SFTPWrapper } from 'ssh2';
import { hostKeyFingerprint } from '../../src/modules/edi/sftp-transport.ts';

const { STATUS_CODE, OPEN_MODE } = ssh2.utils.sftp;

/** An account the server accepts: by password, by public key (OpenSSH `ssh-ed25519 AAAA...` text), or either. */
export interface SftpTestUser {
  username: string;
  password?: string;
  publicKey?: string;
}

export interface SftpTestServerOptions {
  users?: SftpTestUser[];
  /** Directories that exist from the start ('/' always does). */
  directories?: string[];
  /** Whether the server offers posix-rename@openssh.com, as OpenSSH does (true by default). */
  advertisePosixRename?: boolean;
}

export interface AuthAttempt {
  username: string;
  method: string;
  accepted: boolean;
}

export interface RenameRecord {
  via: 'rename' | 'posix-rename';
  from: string;
  to: string;
}

/** Silence at either stage: nothing at all after TCP accept, or an SSH session whose SFTP requests get no answer. */
export type Silence = 'handshake' | 'sftp';

export const SFTP_TEST_USER: Required<Pick<SftpTestUser, 'username' | 'password'>> = { username: 'carrier-upload', password: 'correct horse battery staple' };

/** A file's bytes in a buffer that grows as WRITEs arrive, so a 20 MB upload is not reallocated per packet. */
interface StoredFile {
  data: Buffer;
  size: number;
  modifiedAt: number;
}

type OpenHandle =
  | { kind: 'file'; path: string; file: StoredFile; writable: boolean; written: number }
  | { kind: 'directory'; path: string; remaining: FileEntry[] | undefined };

const FILE_MODE = 0o100644;
const DIRECTORY_MODE = 0o040755;
const NAMES_PER_READDIR = 100;
const POSIX_RENAME = 'posix-rename@openssh.com';

/**
 * A real SFTP server on 127.0.0.1 (ssh2's Server behind our own TCP listener) with an in-memory file system,
 * standing in for a carrier's SFTP drop. It records what clients did (files, authentication attempts,
 * connections, renames) and can misbehave on request: refuse connections, drop one mid-upload, or fall silent.
 */
export class SftpTestServer {
  readonly host = '127.0.0.1';
  readonly hostKeyFingerprint: string;
  /** Every authentication request, in order (a public key login sends two: a query, then the signed one). */
  readonly authAttempts: AuthAttempt[] = [];
  readonly renames: RenameRecord[] = [];
  /** Every file opened for reading (a download), by absolute path, in order. */
  readonly downloads: string[] = [];
  /** TCP connections accepted, refused ones included. */
  connectionCount = 0;

  readonly #listener: NetServer;
  readonly #hostKey: string;
  readonly #users: SftpTestUser[];
  readonly #advertisePosixRename: boolean;
  readonly #sockets = new Set<Socket>();
  readonly #files = new Map<string, StoredFile>();
  readonly #directories = new Set<string>(['/']);
  #refuseNext = 0;
  #dropAfterBytes: number | undefined;
  #silence: Silence | undefined;

  private constructor(options: SftpTestServerOptions) {
    const hostKey = generateEd25519KeyPair();
    this.#hostKey = hostKey.private;
    this.hostKeyFingerprint = publicKeyFingerprint(hostKey.public);
    this.#users = options.users ?? [SFTP_TEST_USER];
    this.#advertisePosixRename = options.advertisePosixRename ?? true;
    for (const directory of options.directories ?? ['/inbound', '/outbound']) this.#directories.add(normalize(directory));
    this.#listener = createServer((socket) => this.#accept(socket));
  }

  static async start(options: SftpTestServerOptions = {}): Promise<SftpTestServer> {
    const server = new SftpTestServer(options);
    await new Promise<void>((resolve, reject) => {
      server.#listener.once('error', reject);
      server.#listener.listen(0, '127.0.0.1', () => resolve());
    });
    return server;
  }

  get port(): number {
    return (this.#listener.address() as AddressInfo).port;
  }

  /** Connections still open on the server's side. */
  get openConnections(): number {
    return this.#sockets.size;
  }

  /** Every stored file by absolute path, as a copy of its bytes. */
  get files(): ReadonlyMap<string, Buffer> {
    return new Map([...this.#files].map(([path, file]) => [path, Buffer.from(file.data.subarray(0, file.size))]));
  }

  file(path: string): Buffer | undefined {
    const stored = this.#files.get(normalize(path));
    return stored && Buffer.from(stored.data.subarray(0, stored.size));
  }

  /** Places a file, as a carrier leaves an acknowledgement in its outbound folder. */
  putFile(path: string, content: Buffer | string): void {
    const data = Buffer.from(content);
    this.#files.set(normalize(path), { data, size: data.length, modifiedAt: nowSeconds() });
  }

  /** The next `count` TCP connections are closed as soon as they are accepted. */
  refuseConnections(count: number): void {
    this.#refuseNext = count;
  }

  /** Once a single open file has received `bytes` bytes, its connection is destroyed (once; later uploads pass). */
  dropConnectionAfterBytes(bytes: number): void {
    this.#dropAfterBytes = bytes;
  }

  /** From now on, new connections get no answer at the given stage; undefined answers again. */
  neverAnswer(stage: Silence | undefined): void {
    this.#silence = stage;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#listener.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    this.connectionCount++;
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => undefined);
    if (this.#refuseNext > 0) {
      this.#refuseNext--;
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    // Silent, but still reading, so that the client's close is noticed.
    if (this.#silence === 'handshake') return void socket.resume();
    const silent = this.#silence === 'sftp';
    // One ssh2 Server per connection (it never listens itself), so that the connection knows its socket.
    new ssh2.Server({ hostKeys: [this.#hostKey] }, (connection) => this.#serve(connection, socket, silent)).injectSocket(socket);
  }

  #serve(connection: Connection, socket: Socket, silent: boolean): void {
    connection.on('error', () => undefined);
    connection.on('authentication', (context) => this.#authenticate(context));
    connection.on('ready', () => {
      connection.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('sftp', (acceptSftp) => {
          const sftp = acceptSftp();
          if (this.#advertisePosixRename) advertiseExtensions(sftp, { [POSIX_RENAME]: '1' });
          if (silent) ignoreEveryRequest(sftp);
          else this.#serveFiles(sftp, socket);
        });
      });
    });
  }

  #authenticate(context: AuthContext): void {
    const user = this.#users.find((candidate) => candidate.username === context.username);
    const accepted = user !== undefined && credentialsMatch(context, user);
    this.authAttempts.push({ username: context.username, method: context.method, accepted });
    if (accepted) context.accept();
    else context.reject(['password', 'publickey']);
  }

  #serveFiles(sftp: SFTPWrapper, socket: Socket): void {
    const handles = new Map<number, OpenHandle>();
    let nextHandle = 0;
    const openHandle = (reqId: number, entry: OpenHandle) => {
      const id = nextHandle++;
      handles.set(id, entry);
      const handle = Buffer.alloc(4);
      handle.writeUInt32BE(id);
      sftp.handle(reqId, handle);
    };
    const handleOf = (handle: Buffer) => (handle.length === 4 ? handles.get(handle.readUInt32BE(0)) : undefined);

    sftp.on('REALPATH', (reqId, path) => {
      const absolute = normalize(path);
      sftp.name(reqId, [{ filename: absolute, longname: absolute, attrs: directoryAttributes() }]);
    });
    const stat = (reqId: number, path: string) => {
      const absolute = normalize(path);
      const file = this.#files.get(absolute);
      if (file) return sftp.attrs(reqId, fileAttributes(file));
      if (this.#directories.has(absolute)) return sftp.attrs(reqId, directoryAttributes());
      sftp.status(reqId, STATUS_CODE.NO_SUCH_FILE);
    };
    sftp.on('STAT', stat);
    sftp.on('LSTAT', stat);
    sftp.on('FSTAT', (reqId, handle) => {
      const entry = handleOf(handle);
      if (!entry) return sftp.status(reqId, STATUS_CODE.FAILURE);
      sftp.attrs(reqId, entry.kind === 'file' ? fileAttributes(entry.file) : directoryAttributes());
    });

    sftp.on('OPEN', (reqId, path, flags) => {
      const absolute = normalize(path);
      if (!this.#directories.has(posix.dirname(absolute)) || this.#directories.has(absolute)) return sftp.status(reqId, STATUS_CODE.NO_SUCH_FILE);
      const writable = (flags & OPEN_MODE.WRITE) !== 0;
      let file = this.#files.get(absolute);
      if (file && flags & OPEN_MODE.EXCL && flags & OPEN_MODE.CREAT) return sftp.status(reqId, STATUS_CODE.FAILURE, 'File exists');
      if (!file) {
        if (!(writable && flags & OPEN_MODE.CREAT)) return sftp.status(reqId, STATUS_CODE.NO_SUCH_FILE);
        file = { data: Buffer.alloc(0), size: 0, modifiedAt: nowSeconds() };
        this.#files.set(absolute, file);
      } else if (writable && flags & OPEN_MODE.TRUNC) {
        file.size = 0;
        file.modifiedAt = nowSeconds();
      }
      if (!writable) this.downloads.push(absolute);
      openHandle(reqId, { kind: 'file', path: absolute, file, writable, written: 0 });
    });

    sftp.on('WRITE', (reqId, handle, offset, data) => {
      const entry = handleOf(handle);
      if (entry?.kind !== 'file' || !entry.writable) return sftp.status(reqId, STATUS_CODE.FAILURE);
      writeAt(entry.file, offset, data);
      entry.written += data.length;
      if (this.#dropAfterBytes !== undefined && entry.written >= this.#dropAfterBytes) {
        this.#dropAfterBytes = undefined;
        socket.destroy();
        return;
      }
      sftp.status(reqId, STATUS_CODE.OK);
    });

    sftp.on('READ', (reqId, handle, offset, length) => {
      const entry = handleOf(handle);
      if (entry?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE);
      if (offset >= entry.file.size) return sftp.status(reqId, STATUS_CODE.EOF);
      sftp.data(reqId, entry.file.data.subarray(offset, Math.min(offset + length, entry.file.size)));
    });

    sftp.on('CLOSE', (reqId, handle) => {
      const entry = handleOf(handle);
      if (!entry) return sftp.status(reqId, STATUS_CODE.FAILURE);
      handles.delete(handle.readUInt32BE(0));
      sftp.status(reqId, STATUS_CODE.OK);
    });

    sftp.on('OPENDIR', (reqId, path) => {
      const absolute = normalize(path);
      if (!this.#directories.has(absolute)) return sftp.status(reqId, STATUS_CODE.NO_SUCH_FILE);
      openHandle(reqId, { kind: 'directory', path: absolute, remaining: undefined });
    });

    sftp.on('READDIR', (reqId, handle) => {
      const entry = handleOf(handle);
      if (entry?.kind !== 'directory') return sftp.status(reqId, STATUS_CODE.FAILURE);
      // Real servers answer a big directory in several READDIR replies; the client asks until EOF.
      entry.remaining ??= this.#listDirectory(entry.path);
      const names = entry.remaining.splice(0, NAMES_PER_READDIR);
      if (names.length === 0) return sftp.status(reqId, STATUS_CODE.EOF);
      sftp.name(reqId, names);
    });

    sftp.on('REMOVE', (reqId, path) => {
      const removed = this.#files.delete(normalize(path));
      sftp.status(reqId, removed ? STATUS_CODE.OK : STATUS_CODE.NO_SUCH_FILE);
    });

    sftp.on('RENAME', (reqId, from, to) => {
      // SFTP v3 (and OpenSSH's plain RENAME) refuses to replace an existing file.
      if (this.#files.has(normalize(to))) return sftp.status(reqId, STATUS_CODE.FAILURE, 'Target exists');
      sftp.status(reqId, this.#move(from, to, 'rename') ? STATUS_CODE.OK : STATUS_CODE.NO_SUCH_FILE);
    });

    sftp.on('EXTENDED', (reqId, name, data) => {
      if (name !== POSIX_RENAME || !this.#advertisePosixRename) return sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED);
      const [from, to] = readStrings(data, 2);
      if (from === undefined || to === undefined) return sftp.status(reqId, STATUS_CODE.BAD_MESSAGE);
      sftp.status(reqId, this.#move(from, to, 'posix-rename') ? STATUS_CODE.OK : STATUS_CODE.NO_SUCH_FILE);
    });
  }

  #listDirectory(directory: string): FileEntry[] {
    const entries: FileEntry[] = [];
    for (const child of this.#directories) {
      if (child !== directory && posix.dirname(child) === directory) {
        entries.push({ filename: posix.basename(child), longname: posix.basename(child), attrs: directoryAttributes() });
      }
    }
    for (const [path, file] of this.#files) {
      if (posix.dirname(path) === directory) entries.push({ filename: posix.basename(path), longname: posix.basename(path), attrs: fileAttributes(file) });
    }
    return entries;
  }

  #move(from: string, to: string, via: RenameRecord['via']): boolean {
    const source = normalize(from);
    const destination = normalize(to);
    const file = this.#files.get(source);
    if (!file || !this.#directories.has(posix.dirname(destination))) return false;
    this.#files.delete(source);
    this.#files.set(destination, file);
    this.renames.push({ via, from: source, to: destination });
    return true;
  }
}

export function startSftpTestServer(options?: SftpTestServerOptions): Promise<SftpTestServer> {
  return SftpTestServer.start(options);
}

/**
 * An ed25519 key pair from ssh2, generated again when ssh2 cannot read its own output: its keygen strips
 * leading zero bytes from the public key, so about 1 pair in 256 is malformed (mscdex/ssh2#1390, open).
 */
export function generateEd25519KeyPair(encryption?: { passphrase: string }): { private: string; public: string } {
  for (let attempt = 0; attempt < 16; attempt++) {
    const pair = encryption
      ? ssh2.utils.generateKeyPairSync('ed25519', { passphrase: encryption.passphrase, cipher: 'aes256-ctr', rounds: 16 })
      : ssh2.utils.generateKeyPairSync('ed25519');
    const readable = !(ssh2.utils.parseKey(pair.public) instanceof Error) && !(ssh2.utils.parseKey(pair.private, encryption?.passphrase) instanceof Error);
    if (readable) return pair;
  }
  throw new Error('ssh2 generated 16 unreadable ed25519 key pairs in a row');
}

/** The `SHA256:` fingerprint of an OpenSSH public key line, as `ssh-keygen -lf` prints it. */
export function publicKeyFingerprint(publicKey: string): string {
  return hostKeyFingerprint(parsePublicKey(publicKey).getPublicSSH());
}

function parsePublicKey(publicKey: string): ParsedKey {
  const parsed = ssh2.utils.parseKey(publicKey);
  if (parsed instanceof Error) throw parsed;
  return Array.isArray(parsed) ? (parsed[0] as ParsedKey) : parsed;
}

function credentialsMatch(context: AuthContext, user: SftpTestUser): boolean {
  switch (context.method) {
    case 'password':
      return user.password !== undefined && context.password === user.password;
    case 'publickey': {
      if (user.publicKey === undefined) return false;
      const key = parsePublicKey(user.publicKey);
      if (context.key.algo !== key.type || !context.key.data.equals(key.getPublicSSH())) return false;
      // Without a signature the client only asks whether the key would do; with one, it must verify.
      return context.signature === undefined || (context.blob !== undefined && key.verify(context.blob, context.signature, context.hashAlgo));
    }
    case 'none':
    case 'hostbased':
    case 'keyboard-interactive':
      return false;
  }
}

function normalize(path: string): string {
  return posix.normalize(posix.join('/', path)).replace(/(.)\/$/, '$1');
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function fileAttributes(file: StoredFile): Attributes {
  return { mode: FILE_MODE, uid: 1000, gid: 1000, size: file.size, atime: file.modifiedAt, mtime: file.modifiedAt };
}

function directoryAttributes(): Attributes {
  const now = nowSeconds();
  return { mode: DIRECTORY_MODE, uid: 1000, gid: 1000, size: 4096, atime: now, mtime: now };
}

function writeAt(file: StoredFile, offset: number, data: Buffer): void {
  const end = offset + data.length;
  if (end > file.data.length) {
    const grown = Buffer.alloc(Math.max(end, file.data.length * 2));
    file.data.copy(grown, 0, 0, file.size);
    file.data = grown;
  }
  if (offset > file.size) file.data.fill(0, file.size, offset);
  data.copy(file.data, offset);
  file.size = Math.max(file.size, end);
  file.modifiedAt = nowSeconds();
}

/** `count` SSH strings (uint32 length, then bytes) from an EXTENDED request's data. */
function readStrings(data: Buffer | undefined, count: number): (string | undefined)[] {
  const strings: (string | undefined)[] = [];
  let offset = 0;
  for (let index = 0; index < count; index++) {
    if (!data || offset + 4 > data.length) return [...strings, undefined];
    const length = data.readUInt32BE(offset);
    if (offset + 4 + length > data.length) return [...strings, undefined];
    strings.push(data.toString('utf8', offset + 4, offset + 4 + length));
    offset += 4 + length;
  }
  return strings;
}

/** Registered but never answered: ssh2 answers OP_UNSUPPORTED by itself to requests nobody listens for. */
function ignoreEveryRequest(sftp: SFTPWrapper): void {
  const requests = ['OPEN', 'READ', 'WRITE', 'FSTAT', 'CLOSE', 'OPENDIR', 'READDIR', 'LSTAT', 'STAT', 'REMOVE', 'RENAME', 'REALPATH', 'EXTENDED'] as const;
  const emitter: EventEmitter = sftp;
  for (const request of requests) emitter.on(request, () => undefined);
}

/**
 * ssh2's server answers the client's INIT with a fixed VERSION packet that lists no extensions, and has no
 * option to add any. OpenSSH lists posix-rename@openssh.com there, and ssh2's client only sends that request
 * when listed, so the packet is swapped on its way out: a patch of this connection's protocol object (private
 * ssh2 API, test-only), restored after the one packet.
 */
function advertiseExtensions(sftp: SFTPWrapper, extensions: Record<string, string>): void {
  const internals = sftp as unknown as {
    _protocol: { channelData(id: number, data: Buffer): void };
    outgoing: { id: number; window: number };
  };
  const protocol = internals._protocol;
  const plainVersion = Buffer.from([0, 0, 0, 5, 2, 0, 0, 0, 3]);
  const body = Buffer.concat([Buffer.from([2, 0, 0, 0, 3]), ...Object.entries(extensions).flatMap(([name, value]) => [sshString(name), sshString(value)])]);
  const lengthPrefix = Buffer.alloc(4);
  lengthPrefix.writeUInt32BE(body.length);
  const version = Buffer.concat([lengthPrefix, body]);
  const send = protocol.channelData.bind(protocol);
  protocol.channelData = (id, data) => {
    if (id !== internals.outgoing.id || !data.equals(plainVersion)) return send(id, data);
    delete (protocol as Partial<typeof protocol>).channelData;
    // ssh2 already counted the plain packet against the channel window; the extra bytes count too.
    internals.outgoing.window -= version.length - data.length;
    send(id, version);
  };
}

function sshString(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}
