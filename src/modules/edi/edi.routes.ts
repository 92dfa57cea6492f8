import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { DeletedSchema, IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { EdiUnmatchedAcknowledgementSchema, ListUnmatchedAcknowledgementsQuerySchema } from './edi-acknowledgement.schemas.ts';
import type { EdiAcknowledgements } from './edi-acknowledgement.service.ts';
import {
  AcknowledgementBodySchema,
  CreateEdiFileBodySchema,
  EdiContentSchema,
  EdiFileSchema,
  EdiLeftOutSchema,
  ListEdiFilesQuerySchema,
  ListEdiLeftOutQuerySchema,
} from './edi-file.schemas.ts';
import type { EdiFileResponse } from './edi-file.schemas.ts';
import type { EdiFileService } from './edi-file.service.ts';
import { EdiProfileSchema, PutEdiProfileBodySchema } from './edi-profile.schemas.ts';
import type { EdiProfileService } from './edi-profile.service.ts';

const tags = ['Carrier EDI'];

/**
 * The 834 feed (admin keys only, but for reading file records): a group's trading-partner profile, its files
 * and their content, confirmation of full files, delivery and the carrier's acknowledgements.
 */
export function registerEdiRoutes(
  app: FastifyInstance,
  deps: { profiles: EdiProfileService; files: EdiFileService; acknowledgements: EdiAcknowledgements; pages: Paginator },
): void {
  const { profiles, files, acknowledgements, pages } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/groups/:public_id/edi_profile',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Retrieve a group's EDI trading-partner profile (secrets are never returned)",
        params: IdParamsSchema,
        response: { 200: EdiProfileSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => profiles.getProfile(scopeOf(request.auth), request.params.public_id),
  );
  api.put(
    '/groups/:public_id/edi_profile',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Create or replace a group's EDI trading-partner profile (ISA/GS ids, sponsor, payer, companion guide, schedule, delivery)",
        params: IdParamsSchema,
        body: PutEdiProfileBodySchema,
        response: { 200: EdiProfileSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => profiles.putProfile(scopeOf(request.auth), request.params.public_id, request.body),
  );
  api.delete(
    '/groups/:public_id/edi_profile',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Delete a group's EDI profile (its files stay)",
        params: IdParamsSchema,
        response: { 200: DeletedSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => profiles.deleteProfile(scopeOf(request.auth), request.params.public_id),
  );

  registerResourceRoutes(app, pages, {
    path: '/edi_files',
    tags,
    record: EdiFileSchema,
    create: {
      summary: 'Build an 834 file now: kind change (benefit changes not yet sent) or full (everyone covered on as_of)',
      body: CreateEdiFileBodySchema,
      access: 'admin',
      run: (scope, body) => files.createFile(scope, body),
    },
    list: {
      summary: 'List EDI files, newest first (?group=, ?kind=, ?status= to filter)',
      query: ListEdiFilesQuerySchema,
      run: (scope, filter, page) => files.listFiles(scope, filter, page),
    },
    get: { summary: 'Retrieve an EDI file (without its content)', run: (scope, id) => files.getFile(scope, id) },
  });

  api.get(
    '/edi_left_out',
    {
      schema: {
        tags,
        summary: "Members the groups' 834 builds leave out and why, each member and reason as first reported, newest first (?group=, ?member=)",
        querystring: ListEdiLeftOutQuerySchema,
        response: { 200: PageSchema(EdiLeftOutSchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      return pages.pageResponse(request, await files.listLeftOut(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size })));
    },
  );

  api.get(
    '/edi_files/:public_id/content',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Download an EDI file's X12 text (admin keys only)",
        params: IdParamsSchema,
        response: {
          200: { description: 'The X12 834 text', content: { 'application/edi-x12': { schema: EdiContentSchema } } },
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const { fileName, byteCount, chunks } = await files.content(scopeOf(request.auth), request.params.public_id);
      return reply
        .type('application/edi-x12')
        .header('content-length', byteCount)
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .header('x-content-type-options', 'nosniff')
        .send(Readable.from(chunks));
    },
  );

  const action = (path: string, summary: string, run: (scope: ReturnType<typeof scopeOf>, id: string) => Promise<EdiFileResponse>) =>
    api.post(
      `/edi_files/:public_id/${path}`,
      {
        config: { access: 'admin' },
        schema: { tags, summary, params: IdParamsSchema, response: { 200: EdiFileSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) } },
      },
      async (request) => run(scopeOf(request.auth), request.params.public_id),
    );
  action('confirm', 'Confirm a full file awaiting confirmation (after reading who it leaves out): it goes to delivery', (scope, id) =>
    files.confirmFile(scope, id),
  );
  action('cancel', 'Cancel a full file awaiting confirmation', (scope, id) => files.cancelFile(scope, id));
  action(
    'retry',
    "Try a ready or delivery_failed file's SFTP delivery now: the waiting attempt is brought forward, or a new delivery is queued (one at a time)",
    (scope, id) => files.retryDelivery(scope, id),
  );
  action('deliver', 'Send a file again over SFTP (the same content, never rebuilt), or mark a download file as taken to the carrier portal', (scope, id) =>
    files.deliverFile(scope, id),
  );

  api.post(
    '/edi_files/:public_id/resend',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          "Build a new change file now of a rejected file's benefit changes still waiting for a file (new control numbers); it names the file it replaces",
        description:
          'Only a change file the carrier rejected (999 or TA1) is resent; its changes went back to awaiting_file when it was rejected. Other statuses are 409 (deliver or retry uploads a file as it is), and so is a file none of whose changes is left to send (carried by a later file, completed or refused since).',
        params: IdParamsSchema,
        response: { 201: EdiFileSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await files.resendFile(scopeOf(request.auth), request.params.public_id)),
  );

  api.post(
    '/edi_files/:public_id/acknowledgements',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "Record the carrier's 999 or TA1 for the file: accepted completes its benefit changes, rejected sends them back to wait for a file",
        params: IdParamsSchema,
        body: AcknowledgementBodySchema,
        response: { 200: EdiFileSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => acknowledgements.acknowledge(scopeOf(request.auth), request.params.public_id, request.body.content),
  );

  api.get(
    '/edi_unmatched_acknowledgements',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "List carrier acknowledgements picked up that are for none of the provider's files (never applied), newest first, with why",
        querystring: ListUnmatchedAcknowledgementsQuerySchema,
        response: { 200: PageSchema(EdiUnmatchedAcknowledgementSchema), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size } = request.query;
      const page = await acknowledgements.listUnmatched(scopeOf(request.auth), pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );
}
