import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from './db/schema.js';
import { errors } from './lib/errors.js';
import { registerAuthentication } from './plugins/authentication.js';
import { answerClientError, answerFrameworkError, registerErrorHandler } from './plugins/errors.js';
import { registerNotFound } from './plugins/not-found.js';
import { registerOpenApi } from './plugins/openapi.js';
import { isApiPath, registerAcceptCheck, registerJsonParser, registerProtocol } from './plugins/protocol.js';
import { requestIdOf } from './plugins/request-id.js';
import { registerRateLimit, type RateLimitSettings } from './plugins/rate-limit.js';
import { registerValidation } from './plugins/validation.js';
import { logSerializers } from './plugins/logging.js';
import { agreementsRoutes } from './resources/agreements/agreements.routes.js';
import { agreementsService } from './resources/agreements/agreements.service.js';
import { offeringCategoriesRoutes } from './resources/offering-categories/offering-categories.routes.js';
import { offeringCategoriesService } from './resources/offering-categories/offering-categories.service.js';
import { offeringsRoutes } from './resources/offerings/offerings.routes.js';
import { offeringsService } from './resources/offerings/offerings.service.js';
import { registrationsRoutes } from './resources/registrations/registrations.routes.js';
import { registrationsService } from './resources/registrations/registrations.service.js';
import { tokensService } from './resources/tokens/tokens.service.js';
import { usersRoutes } from './resources/users/users.routes.js';
import { usersService } from './resources/users/users.service.js';
import { userfieldCategoriesRoutes } from './resources/userfield-categories/userfield-categories.routes.js';
import { userfieldCategoriesService } from './resources/userfield-categories/userfield-categories.service.js';
import { userfieldValuesRoutes } from './resources/userfield-values/userfield-values.routes.js';
import { userfieldValuesService } from './resources/userfield-values/userfield-values.service.js';
import { userfieldsRoutes } from './resources/userfields/userfields.routes.js';
import { userfieldsService } from './resources/userfields/userfields.service.js';

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
  /** Per-token request budget; none when absent. */
  rateLimit?: RateLimitSettings;
}

function createServices(db: Kysely<Database>) {
  return {
    tokens: tokensService(db),
    users: usersService(db),
    userfieldCategories: userfieldCategoriesService(db),
    userfields: userfieldsService(db),
    userfieldValues: userfieldValuesService(db),
    offeringCategories: offeringCategoriesService(db),
    offerings: offeringsService(db),
    registrations: registrationsService(db),
    agreements: agreementsService(db),
  };
}

export type Services = ReturnType<typeof createServices>;

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export type ApiInstance = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

const API_BASES = ['/api/v5', '/dc/api/v5'];
const resourceRoutes = [
  usersRoutes,
  userfieldCategoriesRoutes,
  userfieldsRoutes,
  userfieldValuesRoutes,
  offeringCategoriesRoutes,
  offeringsRoutes,
  registrationsRoutes,
  agreementsRoutes,
];

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

  app.decorate('services', createServices(options.db));
  app.decorate('publicUrl', options.publicUrl);

  registerValidation(app);
  registerJsonParser(app);
  registerErrorHandler(app);
  registerProtocol(app, { trustProxy: options.trustProxy ?? false });
  registerAuthentication(app, app.services.tokens);
  registerNotFound(app);
  registerAcceptCheck(app);
  if (options.rateLimit) await registerRateLimit(app, options.rateLimit);

  // Every route rejects unknown query parameters (an `access_token=` among them), even those without filters.
  app.addHook('onRoute', (route) => {
    if (!isApiPath(route.url)) return;
    route.schema ??= {};
    route.schema.querystring ??= Type.Object({}, { additionalProperties: false });
    if (route.prefix === '/dc/api/v5') route.schema.hide = true;
  });

  await registerOpenApi(app);

  app.get('/healthz', { schema: { hide: true, response: { 200: Type.Object({ status: Type.String() }) } } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true, response: { 200: Type.Object({ status: Type.String() }) } } }, async (request) => {
    try {
      await sql`select 1`.execute(options.db);
    } catch (error) {
      request.log.error({ err: error }, 'readiness check failed');
      throw errors.databaseUnavailable();
    }
    return { status: 'ok' };
  });

  for (const prefix of API_BASES) {
    await app.register(
      async (api) => {
        api.get('/openapi.json', { schema: { hide: true, response: { 200: Type.Object({}, { additionalProperties: true }) } } }, async () =>
          app.swagger(),
        );
        for (const routes of resourceRoutes) await api.register(routes);
      },
      { prefix },
    );
  }
  return app;
}
