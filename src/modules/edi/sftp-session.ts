// The operations of one open SFTP channel (upload through a `.part` then rename, list, move, download, remove);
// connecting and its policy are sftp-transport.ts's.
import ssh2, { type FileEntryWithStats, type SFTPWrapper, type Stats } from 'ssh2';
import { SftpDeliveryError, request, requestVoid, type ErrorCallback } from './sftp-errors.ts';
import { FILE_NAME_RULES, assertValidFileName, assertValidRemotePath, joinRemotePath } from './sftp-remote-names.ts';
import type { SftpTarget } from './sftp-transport.ts';

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

/** Below ssh2's own write limit for non-OpenSSH servers (34000 - 2048 bytes), so that no write is split in two. */
const WRITE_PIECE_BYTES = 31 * 1024;
/** Writes awaiting the server's answer at once: enough to keep a link busy, few enough to bound memory. */
const WRITES_IN_FLIGHT = 8;
const READ_PIECE_BYTES = 31 * 1024;
const PARTIAL_SUFFIX = '.part';

const { STATUS_CODE, OPEN_MODE } = ssh2.utils.sftp;

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
export class Session implements SftpSession {
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
