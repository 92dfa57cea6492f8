import type { FastifyInstance } from 'fastify';
import type { Paginator } from '../../http/pagination.ts';
import { registerResourceRoutes } from '../../http/resource-routes.ts';
import { BeneficiarySchema, CreateBeneficiaryBodySchema, ListBeneficiariesQuerySchema, UpdateBeneficiaryBodySchema } from './beneficiary.schemas.ts';
import type { BeneficiaryService } from './beneficiary.service.ts';

export function registerBeneficiaryRoutes(app: FastifyInstance, deps: { beneficiaries: BeneficiaryService; pages: Paginator }): void {
  const { beneficiaries, pages } = deps;
  registerResourceRoutes(app, pages, {
    path: '/beneficiaries',
    tags: ['Beneficiaries'],
    record: BeneficiarySchema,
    create: {
      summary: "Create a beneficiary of a member's life or disability benefits",
      body: CreateBeneficiaryBodySchema,
      run: (scope, body) => beneficiaries.createBeneficiary(scope, body),
    },
    list: {
      summary: 'List beneficiaries, newest first (?member= to filter); requires an API key',
      query: ListBeneficiariesQuerySchema,
      run: (scope, filter, page) => beneficiaries.listBeneficiaries(scope, filter, page),
    },
    get: { summary: 'Retrieve a beneficiary', run: (scope, id) => beneficiaries.getBeneficiary(scope, id) },
    update: {
      summary: 'Update a beneficiary (the member cannot change)',
      body: UpdateBeneficiaryBodySchema,
      run: (scope, id, body) => beneficiaries.updateBeneficiary(scope, id, body),
    },
    remove: { summary: 'Delete a beneficiary', run: (scope, id) => beneficiaries.deleteBeneficiary(scope, id) },
  });
}
