import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from './db/schema.js';
import type { ApiInstance } from './http/api-instance.js';
import { errors } from './lib/errors.js';
import { withinTime } from './lib/time.js';
import { registerAuthentication } from './plugins/authentication.js';
import { answerClientError, answerFrameworkError, registerErrorHandler } from './plugins/errors.js';
import { registerNotFound } from './plugins/not-found.js';
import { registerOpenApi } from './plugins/openapi.js';
import { isApiPath, registerAcceptCheck, registerJsonParser, registerProtocol } from './plugins/protocol.js';
import { registerRequestContext, requestIdOf } from './plugins/request-id.js';
import { createRateLimiter, type RateLimitSettings } from './plugins/rate-limit.js';
import { registerValidation } from './plugins/validation.js';
import { logSerializers } from './plugins/logging.js';
import { resources } from './resources/index.js';
import { tokensService } from './resources/tokens/tokens.service.js';
import { oauthRoutes } from './oauth/oauth.routes.js';
import { oauthService } from './oauth/oauth.service.js';
import { SCIM_BASE, scimPlugin } from './scim/scim.plugin.js';

export interface AppOptions {
  db: Kysely<Database>;
  /** TLS material: the app then serves HTTPS (see server/listener.ts). */
  https?: { key: string | Buffer; cert: string | Buffer };
  /** TLS is terminated by a proxy: only requests it marks `X-Forwarded-Proto: https` are served. */
  trustProxy?: boolean;
  /** Origin for absolute URLs; else taken from the request. */
  publicUrl?: string;
  bodyLimit?: number;
  /** pino options, or false for silence (tests). */
  logger?: FastifyServerOptions['logger'];
  /** Request budgets (per token, per address, OAuth); none when absent. */
  rateLimit?: RateLimitSettings;
  /** How long an access token issued by POST /oauth/token lasts; one hour when absent. */
  oauthTokenLifetimeSeconds?: number;
}

const API_BASES = ['/api/v5', '/dc/api/v5'];
/** A balancer's probe gets its answer within this, even while the database does not answer at all. */
const READINESS_TIMEOUT_MS = 2000;
const DEFAULT_OAUTH_TOKEN_LIFETIME_SECONDS = 3600;

/** The API as one Fastify instance: protocol plugins in a fixed order, then the resources under both base paths. */
export async function buildApp(options: AppOptions): Promise<ApiInstance> {
  const app = Fastify({
    ...(options.https ? { https: options.https } : {}),
    logger: options.logger ? { ...(options.logger as object), serializers: logSerializers } : false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    genReqId: requestIdOf,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    trustProxy: options.trustProxy ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // No cap on a path parameter's length: an id of any length and form is simply not found (404),
    // after authentication like every other address. Node's header size limit bounds the URL.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: Number.MAX_SAFE_INTEGER },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as ApiInstance;

  app.decorate('publicUrl', options.publicUrl);

  registerRequestContext(app);
  registerValidation(app);
  registerJsonParser(app);
  registerErrorHandler(app);
  registerProtocol(app, { trustProxy: options.trustProxy ?? false });
  const limiter = options.rateLimit ? createRateLimiter(app, options.rateLimit) : undefined;
  limiter?.screenAddresses();
  registerAuthentication(app, tokensService(options.db));
  limiter?.countRequests();
  registerNotFound(app);
  registerAcceptCheck(app);

  // Every route rejects unknown query parameters (an `access_token=` among them), even those without filters.
  app.addHook('onRoute', (route) => {
    if (!isApiPath(route.url)) return;
    route.schema ??= {};
    route.schema.querystring ??= Type.Object({}, { additionalProperties: false });
    if (route.prefix === '/dc/api/v5') route.schema.hide = true;
  });

  await registerOpenApi(
    app,
    resources.flatMap((resource) => (resource.openApi ? [resource.openApi] : [])),
  );

  app.get('/healthz', { schema: { hide: true, response: { 200: Type.Object({ status: Type.String() }) } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true, response: { 200: Type.Object({ status: Type.String() }) } } }, async (request) => {
    try {
      await withinTime(sql`select 1`.execute(options.db), READINESS_TIMEOUT_MS);
    } catch (error) {
      request.log.error({ err: error }, 'readiness check failed');
      throw errors.databaseUnavailable();
    }
    return { status: 'ok' };
  });

  await app.register(oauthRoutes, {
    service: oauthService(options.db, { tokenLifetimeSeconds: options.oauthTokenLifetimeSeconds ?? DEFAULT_OAUTH_TOKEN_LIFETIME_SECONDS }),
    clientBudget: limiter?.clientBudget,
  });

  const resourceRoutes = resources.map((resource) => resource.routes(options.db));
  for (const prefix of API_BASES) {
    await app.register(
      async (api) => {
        api.get('/openapi.json', { schema: { hide: true, response: { 200: Type.Object({}, { additionalProperties: true }) } } }, async () =>
          app.swagger(),
        );
        for (const routes of resourceRoutes) await routes(api);
      },
      { prefix },
    );
  }
  await app.register(scimPlugin, { prefix: SCIM_BASE, db: options.db });
  return app;
}
