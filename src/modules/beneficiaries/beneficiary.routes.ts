import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { DeletedSchema, IdParamsSchema, PageSchema, errorResponses } from '../../http/schemas.ts';
import { assertCanWrite, scopeOf } from '../../shared/tenancy.ts';
import { BeneficiarySchema, CreateBeneficiaryBodySchema, ListBeneficiariesQuerySchema, UpdateBeneficiaryBodySchema } from './beneficiary.schemas.ts';
import type { BeneficiaryService } from './beneficiary.service.ts';

const tags = ['Beneficiaries'];

export function registerBeneficiaryRoutes(app: FastifyInstance, deps: { beneficiaries: BeneficiaryService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { beneficiaries, pages } = deps;

  api.post(
    '/beneficiaries',
    {
      schema: {
        tags,
        summary: "Create a beneficiary of a member's life or disability benefits",
        body: CreateBeneficiaryBodySchema,
        response: { 201: BeneficiarySchema, ...errorResponses(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      assertCanWrite(request.auth);
      return reply.code(201).send(await beneficiaries.createBeneficiary(scopeOf(request.auth), request.body));
    },
  );

  api.get(
    '/beneficiaries',
    {
      schema: {
        tags,
        summary: 'List beneficiaries, newest first (?member= to filter); requires an API key',
        querystring: ListBeneficiariesQuerySchema,
        response: { 200: PageSchema(BeneficiarySchema), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const { cursor, page_size, ...filter } = request.query;
      const page = await beneficiaries.listBeneficiaries(scopeOf(request.auth), filter, pages.pageRequest(request, { cursor, page_size }));
      return pages.pageResponse(request, page);
    },
  );

  api.get(
    '/beneficiaries/:public_id',
    {
      schema: {
        tags,
        summary: 'Retrieve a beneficiary',
        params: IdParamsSchema,
        response: { 200: BeneficiarySchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => beneficiaries.getBeneficiary(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/beneficiaries/:public_id',
    {
      schema: {
        tags,
        summary: 'Update a beneficiary (the member cannot change)',
        params: IdParamsSchema,
        body: UpdateBeneficiaryBodySchema,
        response: { 200: BeneficiarySchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => {
      assertCanWrite(request.auth);
      return beneficiaries.updateBeneficiary(scopeOf(request.auth), request.params.public_id, request.body);
    },
  );

  api.delete(
    '/beneficiaries/:public_id',
    {
      schema: {
        tags,
        summary: 'Delete a beneficiary',
        params: IdParamsSchema,
        response: { 200: DeletedSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      assertCanWrite(request.auth);
      return beneficiaries.deleteBeneficiary(scopeOf(request.auth), request.params.public_id);
    },
  );
}
