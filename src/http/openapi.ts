import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { finishOpenApiDocument } from './openapi-document.ts';

import { API_VERSION } from '../shared/api-version.ts';

export { API_VERSION };

/** OpenAPI 3.1 from the route schemas themselves, served at /openapi.json and browsable at /docs. */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    transformObject: (documents) =>
      finishOpenApiDocument('openapiObject' in documents ? documents.openapiObject : documents.swaggerObject, { apiVersion: API_VERSION }),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Benefits Enrollment Service',
        version,
        description: `Employer-sponsored benefits enrollment. Interface version ${API_VERSION}; send \`API-Version: ${API_VERSION}\` to pin it.`,
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key: bk_live_...' } } },
      security: [{ bearer: [] }],
    },
  });
  // The documentation pages are open to everyone, like /openapi.json.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, public: true, rateLimit: false };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
  app.get('/openapi.json', { config: { public: true, rateLimit: false }, schema: { hide: true } }, async () => app.swagger());
}
