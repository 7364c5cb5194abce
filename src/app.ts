import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyServerOptions } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from './db/schema.js';
import type { RevocationWatch } from './db/token-revocations.js';
import { updatedDateWatermark } from './db/watermark.js';
import type { ApiInstance } from './http/api-instance.js';
import { errors } from './lib/errors.js';
import { documentPasswordPolicy, type PasswordPolicy } from './lib/password-policy.js';
import { withinTime } from './lib/time.js';
import { registerAuthentication, registerScopeCheck } from './plugins/authentication.js';
import { originFormTarget, registerAllowedHosts } from './plugins/allowed-hosts.js';
import { registerCors } from './plugins/cors.js';
import { answerClientError, answerNodeRefusals, frameworkErrorAnswer, registerErrorHandler } from './plugins/errors.js';
import { registerNotFound } from './plugins/not-found.js';
import { registerOpenApi } from './plugins/openapi.js';
import { isApiPath, registerAcceptCheck, registerJsonParser, registerProtocol } from './plugins/protocol.js';
import { registerRequestContext, requestIdOf } from './plugins/request-id.js';
import { createRateLimiter } from './plugins/rate-limit.js';
import type { RateLimitSettings } from './rate-limit/settings.js';
import { registerSecurityHeaders } from './plugins/security-headers.js';
import { registerValidation } from './plugins/validation.js';
import { registerSerialization } from './plugins/serialization.js';
import { logSerializers, RequestLog } from './plugins/logging.js';
import { resources } from './api-resources.js';
import { tokensService } from './auth/tokens.service.js';
import { oauthRoutes, oauthTag, TOKEN_PATH } from './oauth/oauth.routes.js';
import { oauthService } from './oauth/oauth.service.js';
import { SCIM_BASE } from './scim/base-url.js';
import { scimPlugin, scimShapeByPath } from './scim/scim.plugin.js';
import { startEventJobs, type EventSettings } from './events/background.js';
import { DEFAULT_RETENTION_DAYS } from './events/retention.js';
import { registerIdempotency, type IdempotencySettings } from './idempotency/idempotency.plugin.js';
import { fastifyTimeouts, nodeServerOptions, type ClientLimits } from './server/client-limits.js';
import { continueWhenBodyIsRead } from './server/expect-continue.js';
import type { Metrics } from './server/metrics.js';
import { TLS_PROFILE } from './server/tls-certificate.js';
import type { DatabaseTopology } from './db/database.js';
import type { ReadReplicas } from './db/read-replicas.js';
import { registerReadRouting } from './plugins/read-routing.js';
import { DEFAULT_PEOPLE_SETTINGS, type PeopleSettings } from './accounts/settings.js';
import { registerPages } from './pages/pages.plugin.js';
import type { ImportSettings } from './lib/import-settings.js';
import { administratorsConsole, operatorPages } from './console/index.js';

export interface AppOptions {
  db: Kysely<Database>;
  /** TLS material: the app then serves HTTPS (see server/listener.ts). */
  https?: { key: string | Buffer; cert: string | Buffer };
  /**
   * TLS is terminated by a proxy: only requests it marks `X-Forwarded-Proto: https` are served. The
   * proxies' addresses and networks (X-Forwarded-* from anyone else are ignored), or true for any.
   */
  trustProxy?: boolean | string[];
  /** The host names served; a request for another host is refused. Any host when absent. */
  allowedHosts?: readonly string[];
  /** Origin for absolute URLs; else taken from the request. */
  publicUrl?: string;
  bodyLimit?: number;
  /** pino options, or false for silence (tests). */
  logger?: FastifyServerOptions['logger'];
  /** Request budgets (per token, per address, OAuth); none when absent. */
  rateLimit?: RateLimitSettings;
  /** Lets the token check keep resolved tokens until one is revoked anywhere; every request looks its token up when absent. */
  tokenRevocations?: RevocationWatch;
  /** How long an access token issued by POST /oauth/token lasts; one hour when absent. */
  oauthTokenLifetimeSeconds?: number;
  /** Background work on events (retention, webhook deliveries); none when absent. */
  events?: EventSettings;
  /** Request, header, keep-alive and TLS handshake timeouts; Fastify's defaults when absent. */
  clientLimits?: ClientLimits;
  /** Origins whose browser pages may call the API (CORS); none when absent. */
  corsOrigins?: readonly string[];
  /** Counts and times every answer; `token` also serves GET /metrics on this port to whoever bears it. */
  metrics?: { metrics: Metrics; token?: string };
  /** What a user's password must be: the configuration's (config.ts), passed to every service that takes a password. */
  passwordPolicy: PasswordPolicy;
  /** How imports size their batches and hash passwords; the defaults when absent. */
  imports?: ImportSettings;
  /** How duplicates of a POST with an Idempotency-Key wait, and the clock of the keys' 24 hours. */
  idempotency?: IdempotencySettings;
  /** PostgreSQL's hosts, told by /readyz; with read replicas, GET handlers read from them (read-routing.ts). */
  database?: { topology(): DatabaseTopology; replicas?: ReadReplicas };
  /** People's sign-in: sessions' lifetimes and the mail of forgotten passwords; Keycloak's lifetimes and no mail when absent. */
  people?: PeopleSettings;
  /** The time of the sign-in: the throttle's windows, sessions' lifetimes, reset links' (tests move it); `Date.now` when absent. */
  signInClock?: () => number;
  /** True once the server is shutting down: /readyz answers 503 so that the load balancer stops sending requests. */
  draining?: () => boolean;
}

const Health = Type.Object({ status: Type.String() });
const ReplicaStateSchema = Type.Object({ host: Type.String(), up: Type.Boolean(), lagSeconds: Type.Union([Type.Number(), Type.Null()]) });
const Readiness = Type.Object({
  status: Type.String(),
  database: Type.Optional(Type.Object({ primary: Type.Optional(Type.String()), replicas: Type.Array(ReplicaStateSchema) })),
});

const API_BASES = ['/api/v5', '/dc/api/v5'];
/** The query string of a route without filters: none at all. One object, so that its validator is compiled once. */
const NO_QUERY = Type.Object({}, { additionalProperties: false });
/** A balancer's probe gets its answer within this, even while the database does not answer at all. */
const READINESS_TIMEOUT_MS = 2000;
const DEFAULT_OAUTH_TOKEN_LIFETIME_SECONDS = 3600;

/** The API as one Fastify instance: protocol plugins in a fixed order, then the resources under both base paths. */
export async function buildApp(options: AppOptions): Promise<ApiInstance> {
  const server = nodeServerOptions(options.clientLimits);
  const limits = options.clientLimits;
  const app = Fastify({
    ...(options.https ? { https: { ...options.https, ...TLS_PROFILE, ...server } } : { http: server }),
    ...(limits ? fastifyTimeouts(limits) : {}),
    logger: options.logger ? { ...(options.logger as object), serializers: logSerializers } : false,
    logController: new RequestLog({ requestIdLogLabel: 'requestId' }),
    genReqId: requestIdOf,
    frameworkErrors: frameworkErrorAnswer(scimShapeByPath),
    clientErrorHandler: answerClientError,
    rewriteUrl: originFormTarget,
    trustProxy: options.trustProxy ?? false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // No cap on a path parameter's length: an id of any length and form is simply not found (404),
    // after authentication like every other address. Node's header size limit bounds the URL.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: Number.MAX_SAFE_INTEGER },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('publicUrl', options.publicUrl);
  app.decorate('updatedDateWatermark', (orgId: string) => updatedDateWatermark(options.db, orgId));
  const { passwordPolicy } = options;
  answerNodeRefusals(app.server);
  continueWhenBodyIsRead(app.server);

  registerRequestContext(app);
  registerSecurityHeaders(app);
  if (options.metrics) {
    options.metrics.metrics.observe(app);
    if (options.metrics.token) options.metrics.metrics.route(app, options.metrics.token);
  }
  registerValidation(app, passwordPolicy);
  registerSerialization(app);
  registerJsonParser(app);
  registerErrorHandler(app);
  registerProtocol(app, { trustProxy: Boolean(options.trustProxy) });
  // Links are built from the Host only without PUBLIC_URL, and behind a proxy the Host is the proxy's public one.
  if (options.allowedHosts) registerAllowedHosts(app, options.allowedHosts, { anyPort: Boolean(options.publicUrl || options.trustProxy) });
  if (options.corsOrigins?.length) await registerCors(app, options.corsOrigins);
  const limiter = options.rateLimit ? createRateLimiter(app, options.rateLimit) : undefined;
  limiter?.screenAddresses();
  const replicas = options.database?.replicas;
  if (replicas) registerReadRouting(app, { db: options.db, allReplayed: (lsn) => replicas.allReplayed(lsn) });
  const tokens = tokensService(options.db, options.tokenRevocations);
  registerAuthentication(app, tokens, limiter?.beforeTokenRefusal);
  // The last uses gathered and not yet written (tokens.service.ts), before the database is closed.
  app.addHook('onClose', async () => void (await tokens.flushLastUses()));
  limiter?.countRequests();
  registerScopeCheck(app);
  registerNotFound(app);
  registerAcceptCheck(app);

  // Every route rejects unknown query parameters (an `access_token=` among them), even those without filters.
  app.addHook('onRoute', (route) => {
    if (!isApiPath(route.url)) return;
    route.schema ??= {};
    route.schema.querystring ??= NO_QUERY;
    if (route.prefix === '/dc/api/v5') route.schema.hide = true;
  });
  registerIdempotency(app, options.db, isApiPath, options.idempotency);

  await registerOpenApi(app, {
    tokenUrl: TOKEN_PATH,
    tags: [oauthTag, ...resources.map((resource) => resource.tag)],
    rewrites: [...resources.flatMap((resource) => (resource.openApi ? [resource.openApi] : [])), documentPasswordPolicy(passwordPolicy.minLength)],
  });

  app.get('/healthz', { config: { scope: 'none' }, schema: { hide: true, response: { 200: Health } } }, async () => ({ status: 'ok' }));
  // Ready means the primary answers: a replica's absence only moves reads to the primary.
  app.get('/readyz', { config: { scope: 'none', primaryReads: true }, schema: { hide: true, response: { 200: Readiness } } }, async (request) => {
    if (options.draining?.()) throw errors.shuttingDown();
    try {
      await withinTime(sql`select 1`.execute(options.db), READINESS_TIMEOUT_MS);
    } catch (error) {
      request.log.error({ err: error }, 'readiness check failed');
      throw errors.databaseUnavailable();
    }
    return options.database ? { status: 'ok', database: options.database.topology() } : { status: 'ok' };
  });

  const webhooks = {
    allowInsecureLoopback: options.events?.webhooks.allowInsecureLoopback ?? false,
    retentionDays: options.events?.retentionDays ?? DEFAULT_RETENTION_DAYS,
  };
  // People's sign-in: the pages under /o, and the OpenID Connect provider, which shares /oauth/token and /oauth/revoke.
  const delegate = await registerPages(app, {
    db: options.db,
    passwordPolicy,
    imports: options.imports ?? {},
    people: options.people ?? DEFAULT_PEOPLE_SETTINGS,
    redisUrl: options.rateLimit?.redisUrl,
    proxy: Boolean(options.trustProxy),
    ...(options.signInClock ? { clock: options.signInClock } : {}),
    extraRoutes: [administratorsConsole, operatorPages],
    webhooks,
  });
  await app.register(oauthRoutes, {
    service: oauthService(options.db, { tokenLifetimeSeconds: options.oauthTokenLifetimeSeconds ?? DEFAULT_OAUTH_TOKEN_LIFETIME_SECONDS }),
    clientBudget: limiter?.clientBudget,
    delegate,
  });

  const settings = { passwordPolicy, webhooks, imports: options.imports ?? {} };
  const resourceRoutes = resources.map((resource) => resource.routes(options.db, settings));
  for (const prefix of API_BASES) {
    await app.register(
      async (api) => {
        // Public: what a client needs to learn before it has a token.
        api.get(
          '/openapi.json',
          { config: { scope: 'none' }, schema: { hide: true, response: { 200: Type.Object({}, { additionalProperties: true }) } } },
          async () => app.swagger(),
        );
        for (const routes of resourceRoutes) await routes(api);
      },
      { prefix },
    );
  }
  await app.register(scimPlugin, { prefix: SCIM_BASE, db: options.db, passwordPolicy });

  if (options.events) {
    const jobs = startEventJobs(options.db, options.events, app.log, options.metrics?.metrics.recordDelivery);
    app.addHook('onClose', () => jobs.stop());
  }
  return app;
}
