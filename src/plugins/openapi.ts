import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { SCOPE_DESCRIPTIONS } from '../auth/scopes.js';
import { documentProtocol } from '../http/openapi-protocol.js';
import { referenceComponents, withoutValidatorAnnotations, type ApiTag, type DocumentRewrite, type OpenApiDocument } from '../lib/openapi.js';

const API_BASE = '/api/v5';

/**
 * The /docs page's Content Security Policy: its own scripts, styles and the logo (a data: URL), and
 * requests to this server only. Swagger UI draws its default logo, an SVG with an inline style, for a
 * moment before the page puts ours in its place: that one style is allowed by its hash. A browser
 * test (test/http/security-headers.test.ts) renders the page and fails on any violation.
 */
const DOCS_POLICY = {
  'default-src': "'self'",
  'base-uri': "'self'",
  'connect-src': "'self'",
  'font-src': "'self' data:",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
  'img-src': "'self' data:",
  'object-src': "'none'",
  'script-src': "'self'",
  'script-src-attr': "'none'",
  'style-src': "'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  'upgrade-insecure-requests': '',
};

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
 * Register before the routes: the generator collects them as they are added. `tokenUrl` is the OAuth
 * token endpoint; `tags` are the document's sections in order, `rewrites` the resources' own changes
 * to the generated document, applied in order.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  { tokenUrl, tags, rewrites }: { tokenUrl: string; tags: readonly ApiTag[]; rewrites: readonly DocumentRewrite[] },
): Promise<void> {
  const outsideApi = new Set<string>();
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Training Platform REST API',
        version: '5',
        description:
          'training-api: the v5 API, self-hosted. An address asked with a method it does not accept answers 405 ' +
          '(with `Allow` and an `Errors` body); an unknown address 404.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: API_BASE }],
      tags: [...tags],
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
            flows: { clientCredentials: { tokenUrl, scopes: SCOPE_DESCRIPTIONS } },
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
      const rewritten = rewrites.reduce((current, rewrite) => rewrite(current), referenced);
      return withoutValidatorAnnotations(documentProtocol(rewritten, outsideApi));
    },
    // Schemas with an $id (User, ...) become named components instead of def-0, def-1.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_POLICY });
}
