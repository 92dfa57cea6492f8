import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { IdParamsSchema, errorResponses } from '../../http/schemas.ts';
import { scopeOf } from '../../shared/tenancy.ts';
import { BenefitChangeListSchema, BenefitChangeSchema, RefuseBenefitChangeBodySchema, UpdateBenefitChangeBodySchema } from './benefit-change.schemas.ts';
import type { BenefitChangeService } from './benefit-change.service.ts';

const tags = ['Benefit changes'];

/** `pages` is accepted like every module's, though GET /enrollments/{id}/benefit_changes answers a plain array, as the contract has it. */
export function registerBenefitChangeRoutes(app: FastifyInstance, deps: { benefitChanges: BenefitChangeService; pages: Paginator }): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { benefitChanges } = deps;

  api.get(
    '/enrollments/:public_id/benefit_changes',
    {
      schema: {
        tags,
        summary: 'List every benefit change of an enrollment, one per line of coverage and carrier group it touches, in line order (not paginated)',
        params: IdParamsSchema,
        response: { 200: BenefitChangeListSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => benefitChanges.listForEnrollment(scopeOf(request.auth), request.params.public_id),
  );

  api.get(
    '/benefit_changes/:public_id',
    {
      schema: {
        tags,
        summary: 'Retrieve a benefit change',
        params: IdParamsSchema,
        response: { 200: BenefitChangeSchema, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => benefitChanges.getBenefitChange(scopeOf(request.auth), request.params.public_id),
  );

  api.patch(
    '/benefit_changes/:public_id',
    {
      schema: {
        tags,
        summary: 'Complete a benefit change by hand (completed_at, for manual and edi connections), reopen it (null), or set memo and assignee',
        params: IdParamsSchema,
        body: UpdateBenefitChangeBodySchema,
        response: { 200: BenefitChangeSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => benefitChanges.updateBenefitChange(scopeOf(request.auth), request.params.public_id, request.body),
  );

  api.post(
    '/benefit_changes/:public_id/refuse',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          "Record the carrier's business refusal of a benefit change (from its report or portal), with its reason: the change is rejected and its enrollment failed",
        description:
          "Admin keys only. Allowed while the change is manual, awaiting_file, sent or completed (a carrier may refuse after accepting a file); 409 otherwise. The reason goes to memo; the member and the employer get a benefit_change_refused alert. A 999/TA1 rejection of a file is not a refusal: it sends the file's changes back to be sent.",
        params: IdParamsSchema,
        body: RefuseBenefitChangeBodySchema,
        response: { 200: BenefitChangeSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429) },
      },
    },
    async (request) => benefitChanges.refuseBenefitChange(scopeOf(request.auth), request.params.public_id, request.body.reason),
  );
}
