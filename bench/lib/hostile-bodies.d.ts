// Types of hostile-bodies.js for the TypeScript tests that run it (test/api/hostile-bodies.test.ts).

export interface BodyLimits {
  bodyLimit: number;
  maxDepth: number;
  maxValues: number;
  jsonShape: (text: string) => { depth: number; values: number };
}

export interface OperationLimits extends BodyLimits {
  documentBodyLimit: number;
  maxDocumentBytes: number;
}

export interface BodyCase {
  case: string;
  make: () => string | undefined;
}

export interface RequestCase {
  name: string;
  group: 'body' | 'document' | 'refused';
  method: string;
  path: string;
  authorization: string | undefined;
  make: () => string | undefined;
}

export interface OpenApiLike {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
}

export function attackBodies(options: { limit: number; documentLimit: number }): {
  bodies: { name: string; text: string }[];
  documentBody: { name: string; text: string };
};
export function overLimitBodies(limits: BodyLimits): BodyCase[];
export function operationsWithJsonBodies(openapi: OpenApiLike): { method: string; path: string; schema: Record<string, unknown> }[];
export function inlined<T>(schema: T, openapi: OpenApiLike): T;
export function worstBodies(schema: Record<string, unknown>, limits: BodyLimits): BodyCase[];
export function stringFields(schema: Record<string, unknown>): { path: string; check: string }[];
export function oneFieldBodies(schema: Record<string, unknown>, field: { path: string; check: string }, limits: BodyLimits): BodyCase[];
export function documentBodies(options: { limit: number; maxDocumentBytes: number }): BodyCase[];
export function bodyCases(options: { openapi: OpenApiLike; idFor: (path: string) => string; authorization: string; limits: OperationLimits }): RequestCase[];
export function operationBodyCases(options: {
  openapi: OpenApiLike;
  idFor: (path: string) => string;
  authorization: string;
  limits: OperationLimits;
}): RequestCase[];
export function refusedBodyCases(options: { authorization: string; limits: OperationLimits }): RequestCase[];
export function fit(make: (n: number) => string | undefined, budget: number): string | undefined;
