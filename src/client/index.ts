/**
 * A typed client of the API: `openapi-fetch` over the types openapi-typescript generates from the OpenAPI
 * document (./api.ts, made by npm install and npm run build, never edited or committed; a test fails when it
 * is out of step with the sources). Every path, parameter, body and answer is typed from the document.
 *
 *   import { createBenefitsClient } from 'benefits-enrollment-service/client';
 *   const api = createBenefitsClient({ baseUrl: 'https://benefits.example.com', apiKey: process.env.BENEFITS_API_KEY! });
 *   const { data, error } = await api.GET('/members/{public_id}', { params: { path: { public_id: 'mem_...' } } });
 */
import createClient, { type Client } from 'openapi-fetch';
import { API_VERSION } from '../shared/api-version.ts';
import type { components, operations, paths } from './api.ts';

export type { components, operations, paths };
/** The named schemas: `Schemas['Enrollment']`, `Schemas['ErrorBody']`, ... */
export type Schemas = components['schemas'];
export type BenefitsClient = Client<paths>;

export interface BenefitsClientOptions {
  /** The service's base URL, e.g. https://benefits.example.com */
  baseUrl: string;
  /** An API key (bk_live_...), sent as a Bearer token. */
  apiKey: string;
  /** More headers on every request. */
  headers?: Record<string, string>;
  /** A fetch implementation other than the global one. */
  fetch?: typeof globalThis.fetch;
}

/** A client pinned to the interface version it was generated from (API-Version). */
export function createBenefitsClient(options: BenefitsClientOptions): BenefitsClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}`, 'api-version': API_VERSION, ...options.headers },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
