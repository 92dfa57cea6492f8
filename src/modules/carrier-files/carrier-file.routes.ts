import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import type { CarrierFileResolutions } from './carrier-file-resolution.service.ts';
import { CarrierFileSchema, CreateCarrierFileBodySchema, ResolveDiscrepancyBodySchema } from './carrier-file.schemas.ts';
import type { CarrierFileService } from './carrier-file.service.ts';

/** A census is larger than the API's usual 1 MiB body: up to 16 MiB of CSV, in a JSON body. */
const CARRIER_FILE_BODY_LIMIT = 17 * 1024 * 1024;

export function registerCarrierFileRoutes(app: FastifyInstance, deps: { carrierFiles: CarrierFileService; resolutions: CarrierFileResolutions }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.post(
    '/groups/:public_id/carrier_files',
    {
      bodyLimit: CARRIER_FILE_BODY_LIMIT,
      schema: {
        tags: ['Groups'],
        summary: 'Compare what the carrier says it holds (a census as CSV) with our coverage on the group on a day',
        description:
          'Discrepancies: missing (we cover, the file lacks), extra (the file holds what we do not, or a subscriber id of nobody), plan, tier, dates, dependents, demographics. Rows that cannot be read are listed with their line and column. The comparison is kept (GET /carrier_files/{id}); the file is not. docs/decisions.md "Carrier files".',
        params: IdParamsSchema,
        body: CreateCarrierFileBodySchema,
        response: { 201: CarrierFileSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await deps.carrierFiles.receiveCarrierFile(scopeOf(request.auth), request.params.public_id, request.body)),
  );
  api.get(
    '/carrier_files/:public_id',
    {
      schema: {
        tags: ['Groups'],
        summary: "Retrieve a carrier file's comparison",
        params: IdParamsSchema,
        response: { 200: CarrierFileSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => deps.carrierFiles.getCarrierFile(scopeOf(request.auth), request.params.public_id),
  );

  api.post(
    '/carrier_files/:public_id/resolutions',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Groups'],
        summary: "Resolve a discrepancy of a carrier file: resend our truth to the carrier, or accept the carrier's value (demographics)",
        description:
          "Admin keys only. Once per discrepancy (409 invalid_state after). resend: missing, plan, tier, dates and dependents record a benefit change of our coverage on the file's as_of (new for missing, else a change from what the carrier ledger says was told), extra a removal of what was told; it goes to the carrier like any other (the next 834 change file, manual completion, the carrier API). Demographics are sent again in the next 834 change file (edi groups only). accept_carrier_value: the carrier's first_name, last_name and dob become the member's or dependent's (member.updated, dependent.updated); coverage kinds are 409 resolution_not_applicable. docs/decisions.md \"Carrier files\", Resolving discrepancies.",
        params: IdParamsSchema,
        body: ResolveDiscrepancyBodySchema,
        response: { 201: CarrierFileSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await deps.resolutions.resolve(scopeOf(request.auth), request.auth.apiKeyId, request.params.public_id, request.body)),
  );
}
