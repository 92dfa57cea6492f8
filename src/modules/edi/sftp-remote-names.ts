// The rules remote names pass: a file name is one plain name that cannot leave its directory, and a remote path
// has no `..` segment, backslash or control character (a carrier's server may list anything).
import { CONTROL_CHARACTERS, SftpDeliveryError } from './sftp-errors.ts';

const MAX_FILE_NAME_BYTES = 255;
const MAX_REMOTE_PATH_BYTES = 1_024;

/** One rule a file name must pass; each names what it refuses, for the error message. */
interface FileNameRule {
  refuses: (name: string) => boolean;
  reason: string;
}

export const FILE_NAME_RULES: readonly FileNameRule[] = [
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
export function assertValidRemotePath(path: string): void {
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

export function joinRemotePath(directory: string, fileName: string): string {
  const trimmed = directory.replace(/\/+$/, '');
  return directory.startsWith('/') && trimmed === '' ? `/${fileName}` : `${trimmed}/${fileName}`;
}
