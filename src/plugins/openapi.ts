import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { SCOPE_DESCRIPTIONS } from '../auth/scopes.js';
import { TOKEN_PATH } from '../oauth/oauth.routes.js';
import { referenceComponents, withoutValidatorAnnotations, type DocumentRewrite, type OpenApiDocument } from '../lib/openapi.js';

const API_BASE = '/api/v5';

/** Paths outside the API's base path (the OAuth endpoints) are served from the server's root. */
function servedFromRoot(document: OpenApiDocument, paths: ReadonlySet<string>): OpenApiDocument {
  for (const path of paths) {
    const item = document.paths?.[path];
    if (item) item.servers = [{ url: '/' }];
  }
  return document;
}

/**
 * The OpenAPI 3.1 document, generated from the route schemas that also validate and serialize
 * (served at /api/v5/openapi.json by the API), and the interactive page for people at /docs.
 * Register before the routes: the generator collects them as they are added. `rewrites` are the
 * resources' own changes to the generated document, applied in order.
 */
export async function registerOpenApi(app: FastifyInstance, rewrites: readonly DocumentRewrite[]): Promise<void> {
  const outsideApi = new Set<string>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Training Platform REST API', version: '5', description: 'training-api: the v5 API, self-hosted.' },
      servers: [{ url: API_BASE }],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'An access token made with `training-api tokens create`, or issued by /oauth/token',
          },
          oauth2: {
            type: 'oauth2',
            description: 'OAuth 2.0 client credentials: a client made with `training-api clients create` gets expiring access tokens',
            flows: { clientCredentials: { tokenUrl: TOKEN_PATH, scopes: SCOPE_DESCRIPTIONS } },
          },
          clientBasic: { type: 'http', scheme: 'basic', description: 'An OAuth client: its id and secret' },
        },
      },
      security: [{ bearer: [] }, { oauth2: [] }],
    },
    transform: ({ schema, url }) => {
      if (!url.startsWith(API_BASE)) outsideApi.add(url);
      return { schema, url: url.startsWith(API_BASE) ? url.slice(API_BASE.length) : url };
    },
    transformObject: (document) => {
      const referenced = referenceComponents(servedFromRoot((document as { openapiObject: OpenApiDocument }).openapiObject, outsideApi));
      return withoutValidatorAnnotations(rewrites.reduce((rewritten, rewrite) => rewrite(rewritten), referenced)) as object;
    },
    // Schemas with an $id (User, ...) become named components instead of def-0, def-1.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}
