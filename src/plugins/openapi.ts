import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { GRANTED_BY, SCOPE_DESCRIPTIONS, type RouteScope } from '../auth/scopes.js';
import { documentProtocol } from '../http/openapi-protocol.js';
import { DOCS_CSS, DOCS_SCRIPT, DOCS_TITLE } from './docs-page.js';
import { referenceComponents, withoutValidatorAnnotations, type ApiTag, type DocumentRewrite, type OpenApiDocument } from '../lib/openapi.js';

const API_BASE = '/api/v5';

/**
 * The /docs page's Content Security Policy: its own scripts and styles, images of its own or data:
 * URLs, and requests to this server only. A browser test (test/http/security-headers.test.ts) renders
 * the page and fails on any violation.
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
  'style-src': "'self'",
  'upgrade-insecure-requests': '',
};

/**
 * An operation's security requirements, from the scope its route declares: a bearer token or an OAuth
 * access token that grants it (either of the scopes that grant `read`). None for a route that takes no
 * token, whose schema says how it is authenticated, if at all (OAuth's endpoints).
 */
function securityOf(scope: RouteScope | undefined): Record<string, string[]>[] | undefined {
  if (scope === undefined || scope === 'none') return undefined;
  return ['bearer', 'oauth2'].flatMap((scheme) => GRANTED_BY[scope].map((granted) => ({ [scheme]: [granted] })));
}

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
    },
    transform: ({ schema, url, route }) => {
      if (!url.startsWith(API_BASE)) outsideApi.add(url);
      const security = securityOf(route.config?.scope);
      return { schema: security ? { ...schema, security } : schema, url: url.startsWith(API_BASE) ? url.slice(API_BASE.length) : url };
    },
    transformObject: (document) => {
      const referenced = referenceComponents(servedFromRoot((document as { openapiObject: OpenApiDocument }).openapiObject, outsideApi));
      const rewritten = rewrites.reduce((current, rewrite) => rewrite(current), referenced);
      return withoutValidatorAnnotations(documentProtocol(rewritten, outsideApi));
    },
    // Schemas with an $id (User, ...) become named components instead of def-0, def-1.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: DOCS_POLICY,
    // Without Swagger UI's top bar (a box to load another document, its logo, a dark-mode switch): this page
    // shows this API. Without deep links, whose anchors inside each operation's button nest one control in another.
    uiConfig: { layout: 'BaseLayout', deepLinking: false },
    theme: {
      title: DOCS_TITLE,
      css: [{ filename: 'accessible.css', content: DOCS_CSS }],
      js: [{ filename: 'accessible.js', content: DOCS_SCRIPT }],
    },
  });
}
