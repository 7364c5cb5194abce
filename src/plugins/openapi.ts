import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { referenceComponents, withoutValidatorAnnotations, type DocumentRewrite, type OpenApiDocument } from '../lib/openapi.js';

/**
 * The OpenAPI 3.1 document, generated from the route schemas that also validate and serialize
 * (served at /api/v5/openapi.json by the API), and the interactive page for people at /docs.
 * Register before the routes: the generator collects them as they are added. `rewrites` are the
 * resources' own changes to the generated document, applied in order.
 */
export async function registerOpenApi(app: FastifyInstance, rewrites: readonly DocumentRewrite[]): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Training Platform REST API', version: '5', description: 'training-api: the v5 API, self-hosted.' },
      servers: [{ url: '/api/v5' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: ({ schema, url }) => ({ schema, url: url.replace(/^\/api\/v5/, '') }),
    transformObject: (document) => {
      const referenced = referenceComponents((document as { openapiObject: OpenApiDocument }).openapiObject);
      return withoutValidatorAnnotations(rewrites.reduce((rewritten, rewrite) => rewrite(rewritten), referenced)) as object;
    },
    // Schemas with an $id (User, ...) become named components instead of def-0, def-1.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}
