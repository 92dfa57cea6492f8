import type { Kysely } from 'kysely';
import { mapPage, type Page, type PageRequest } from '../../db/keyset.ts';
import { isVisibleReference } from '../../db/references.ts';
import type { Database } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, NotFound, ValidationFailed, inputError, validationFailed, type InputError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Scope } from '../../shared/tenancy.ts';
import { eventOf } from '../events/event-data.ts';
import type { ChangeCommit } from '../change-commit/change-commit.ts';
import * as repository from './document.repository.ts';
import { MAX_DOCUMENT_BYTES, type CreateDocumentBody, type DocumentResponse } from './document.schemas.ts';
import type { DocumentRow } from './document.table.ts';

/** The longest base64 text that can decode to MAX_DOCUMENT_BYTES. */
const MAX_BASE64_LENGTH = Math.ceil(MAX_DOCUMENT_BYTES / 3) * 4;

export function toDocumentResponse(row: repository.DocumentInfoRow): DocumentResponse {
  return {
    id: row.id,
    name: row.name,
    content_type: row.content_type,
    size: Number(row.size),
    member: row.member_id,
    employer: row.employer_id,
    created_at: row.created_at,
  };
}

/**
 * Standard, padded base64 (RFC 4648 section 4) and nothing else. Buffer.from skips characters it does not
 * know (whitespace, '!') and stops at a '=' inside the text, so every one of those leaves fewer bytes than the
 * text's length promises; it also reads the URL-safe '-' and '_', which are looked for; and the last group is
 * encoded back, so no padding bits may be set. Linear, without encoding megabytes back to compare them.
 */
export function decodeBase64Strictly(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || text.includes('-') || text.includes('_')) return undefined;
  const bytes = Buffer.from(text, 'base64');
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  if (bytes.length !== (text.length / 4) * 3 - padding) return undefined;
  const last = text.slice(-4);
  return Buffer.from(last, 'base64').toString('base64') === last ? bytes : undefined;
}

function decodeContent(text: string): Buffer {
  const tooLarge = new AppError('payload_too_large', `A document may hold at most ${MAX_DOCUMENT_BYTES} bytes (10 MiB).`);
  if (text.length > MAX_BASE64_LENGTH) throw tooLarge;
  if (text.length === 0) throw validationFailed(['content_base64'], 'Must not be empty.');
  const bytes = decodeBase64Strictly(text);
  if (!bytes) throw validationFailed(['content_base64'], 'Must be standard base64 (RFC 4648: A-Z, a-z, 0-9, + and /, padded with =), without whitespace.');
  if (bytes.length > MAX_DOCUMENT_BYTES) throw tooLarge;
  return bytes;
}

/** Bytes as a Buffer whichever driver read them: pg gives a Buffer, node:sqlite a Uint8Array. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export class DocumentService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #changes: ChangeCommit;

  constructor(db: Kysely<Database>, clock: Clock, changes: ChangeCommit) {
    this.#db = db;
    this.#clock = clock;
    this.#changes = changes;
  }

  /**
   * A document of a member belongs to the member's employer. Without member or employer it is provider-wide,
   * except for employer keys: theirs are always their employer's, so that they can read what they upload.
   */
  async createDocument(scope: Scope, input: CreateDocumentBody): Promise<DocumentResponse> {
    const content = decodeContent(input.content_base64);
    return this.#db.transaction().execute(async (trx) => {
      const errors: InputError[] = [];
      const member = input.member ? await repository.lockMemberOfDocument(trx, scope, input.member) : undefined;
      if (input.member && !member) errors.push(inputError(['member'], 'No such member.'));
      if (input.employer && !(await isVisibleReference(trx, scope, 'employer', input.employer))) {
        errors.push(inputError(['employer'], 'No such employer.'));
      } else if (input.employer && member && member.employer_id !== input.employer) {
        errors.push(inputError(['employer'], "Must be the member's employer (or left out)."));
      }
      if (errors.length > 0) throw new ValidationFailed(errors);

      const { content_base64: _content, ...fields } = input;
      const row: DocumentRow = {
        id: newId('document'),
        provider_id: scope.providerId,
        employer_id: member?.employer_id ?? fields.employer ?? scope.employerId,
        member_id: member?.id ?? null,
        name: fields.name,
        content_type: fields.content_type,
        size: content.length,
        content,
        created_at: this.#clock.now().toISOString(),
      };
      await repository.insertDocument(trx, row);
      await this.#changes.commit(trx, { events: [eventOf('document', 'created', row)] });
      const { content: _bytes, ...info } = row;
      return toDocumentResponse(info);
    });
  }

  async getDocument(scope: Scope, id: string): Promise<DocumentResponse> {
    const row = await repository.findDocumentById(this.#db, scope, id);
    if (!row) throw new NotFound('document');
    return toDocumentResponse(row);
  }

  async listDocuments(
    scope: Scope,
    filter: { member?: string | undefined; employer?: string | undefined },
    page: PageRequest,
  ): Promise<Page<DocumentResponse>> {
    const rows = await repository.listDocuments(this.#db, scope, { memberId: filter.member, employerId: filter.employer }, page);
    return mapPage(rows, toDocumentResponse);
  }

  async getDocumentContent(scope: Scope, id: string): Promise<{ name: string; contentType: string; bytes: Buffer }> {
    const row = await repository.findDocumentContent(this.#db, scope, id);
    if (!row) throw new NotFound('document');
    return { name: row.name, contentType: row.content_type, bytes: asBuffer(row.content) };
  }
}
