import cookie from '@fastify/cookie';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../lib/domain-errors.js';
import { isId } from '../lib/ids.js';
import { refusalFor } from '../plugins/errors.js';
import { hasBody } from '../plugins/protocol.js';
import { addressKey } from '../plugins/rate-limit.js';
import { organizationsRepository } from '../tenancy/organizations.repository.js';
import { PAGES_PREFIX, STYLESHEET_ROUTE, STYLESHEET_TEXT } from './assets.js';
import { pagePolicy } from './policy.js';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { startSignInCleanup } from '../accounts/cleanup.js';
import { smtpMailer } from '../accounts/mailer.js';
import { passwordResetsService } from '../accounts/password-resets.service.js';
import { profileService } from '../accounts/profile.service.js';
import { sessionsService } from '../accounts/sessions.service.js';
import { signInService } from '../accounts/sign-in.service.js';
import { signInThrottle } from '../accounts/throttle.js';
import type { ImportSettings } from '../lib/import-settings.js';
import type { PeopleSettings } from '../accounts/settings.js';
import type { Database } from '../db/schema.js';
import { serverKey } from '../db/server-keys.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import { cookieNames, csrfTokens, type CsrfTokens } from './cookies.js';
import { html, type Html } from './html.js';
import { displayName, page, type PageContext } from './layout.js';
import { languageOf, loadLanguages } from './locales/index.js';
import type { Messages } from './locales/messages.js';
import type { FormBody } from './userfield-inputs.js';
import { accountRoutes } from './account.routes.js';
import { PageError, pageErrors, pageRefusal, type OrganizationRequest, type PageRoutesOptions, type PagesOptions } from './page-routes.js';
import { resetRoutes } from './password-reset.routes.js';
import { signInRoutes } from './sign-in.routes.js';
import { interactionRoutes } from './interaction.routes.js';
import { providerPages } from './provider-pages.js';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { requestOrigin } from '../http/urls.js';
import type { OAuthDelegate } from '../oauth/oauth.routes.js';
import { providerHandler, providerRoutes } from '../oidc/mount.js';
import { oidcProviders, type OidcProviders } from '../oidc/provider.js';

/** What the pages need of the configuration. */
export interface PagesSettings {
  db: Kysely<Database>;
  passwordPolicy: PasswordPolicy;
  /** How the console's imports size their batches and hash passwords. */
  imports: ImportSettings;
  people: PeopleSettings;
  /** Shared counters of the sign-in throttle, when several instances run. */
  redisUrl?: string;
  /** The time of the throttle, the sessions and the reset links (tests move it); `Date.now` when absent. */
  clock?: () => number;
  /** Behind a TLS-terminating proxy: the provider believes X-Forwarded-Proto. */
  proxy: boolean;
  /** More pages on the same tools (the administrators' console). */
  extraRoutes?: PagesOptions['extraRoutes'];
  /** The webhooks' settings, which the console's webhooks follow as the API's do. */
  webhooks: PagesOptions['webhooks'];
}

/** The session cookies a Cookie header holds, with their organization's id. */
function sessionCookiesOf(header: string | undefined): [string, string][] {
  return [...(header ?? '').matchAll(/(?:^|;\s*)(__Host-session-([0-9a-f]{32}))=/g)].map((match) => [match[1]!, match[2]!]);
}

/**
 * The sign-in's services over `db`; the OpenID Connect provider's endpoints; and the pages over them,
 * registered under /o. Returns what hands a request of a sign-in client at /oauth/token and
 * /oauth/revoke to the provider.
 */
export async function registerPages(app: FastifyInstance, settings: PagesSettings): Promise<OAuthDelegate> {
  const { db } = settings;
  // Read when first needed: the app may be built before the database is migrated (the command line's tests do).
  const key = (name: string) => {
    let value: Promise<Buffer> | undefined;
    const read = () =>
      serverKey(db, name, () => randomBytes(32).toString('base64')).then(
        (text) => Buffer.from(text, 'base64'),
        (error: unknown) => {
          value = undefined; // read again next time
          throw error;
        },
      );
    return () => (value ??= read());
  };
  const languages = await loadLanguages();
  const throttle = signInThrottle({
    redisUrl: settings.redisUrl,
    deviceKey: key('sign-in-devices'),
    ...(settings.clock ? { clock: settings.clock } : {}),
    onStoreError: (error) => app.log.warn({ err: error }, 'sign-in throttle store unreachable; sign-ins are not throttled meanwhile'),
  });
  const mail = settings.people.mail;
  const mailer = mail ? smtpMailer(mail.url, mail.from) : undefined;
  const cleanup = startSignInCleanup(db, app.log);
  app.addHook('onClose', async () => {
    mailer?.close();
    await Promise.all([throttle.close(), cleanup.stop()]);
  });
  const sessions = sessionsService(db, settings.people.sessions, settings.clock);
  const profile = profileService(db, settings.passwordPolicy);

  const organizationOf = async (ctx: KoaContextWithOIDC) => {
    const clientId = ctx.oidc?.client?.clientId;
    return clientId ? (await providers.clientOf(clientId))?.orgId : undefined;
  };
  const rendered = providerPages(db, languages, organizationOf);
  const providers: OidcProviders = oidcProviders({
    db,
    sessions,
    sessionCookie: cookieNames.session,
    interactionUrl: (orgId, uid) => `${PAGES_PREFIX}/${orgId}/interaction/${uid}`,
    renderError: rendered.renderError,
    logoutSource: rendered.logoutSource,
    postLogoutSuccessSource: rendered.postLogoutSuccessSource,
    // The person's sessions at the pages end with the provider's, in this browser.
    async onSignOut(ctx, accountId) {
      for (const [name, orgId] of sessionCookiesOf(ctx.get('cookie'))) {
        const secret = ctx.cookies.get(name, { signed: false });
        if ((await sessions.resume(orgId, secret))?.user_id !== accountId) continue;
        await sessions.end(orgId, secret);
        ctx.cookies.set(name, null, { path: '/', secure: true, httpOnly: true, sameSite: 'lax', signed: false, overwrite: true });
      }
    },
    proxy: settings.proxy,
  });
  // The issuer as the provider writes its endpoints: a default port left out.
  const issuerOf = (request: FastifyRequest) => new URL(requestOrigin(request)).origin;
  const handle = providerHandler(providers, issuerOf);
  await app.register(providerRoutes, { handle });

  await app.register(pagesPlugin, {
    prefix: PAGES_PREFIX,
    db,
    languages,
    csrfKey: key('csrf'),
    sessions,
    signIn: signInService(db, throttle, settings.passwordPolicy),
    profile,
    passwordPolicy: settings.passwordPolicy,
    imports: settings.imports,
    webhooks: settings.webhooks,
    resets: passwordResetsService(db, profile, {
      ...(mailer ? { mailer } : {}),
      onMailError: (error) => app.log.error({ err: error }, 'a forgotten password mail could not be sent'),
      ...(settings.clock ? { clock: settings.clock } : {}),
    }),
    oidc: { providerFor: providers.providerFor, issuerOf, clientOf: providers.clientOf },
    ...(settings.people.operatorToken ? { operatorToken: settings.people.operatorToken } : {}),
    ...(settings.extraRoutes ? { extraRoutes: settings.extraRoutes } : {}),
  });
  return handle;
}

const PAGE_POLICY = pagePolicy();
/** The console's pages (and the operator's) load scripts of this origin, and fetch from it (an import's progress); nothing inline still. */
const CONSOLE_POLICY = pagePolicy(["'self'"], { script: true });
const CONSOLE_PATH = /^\/o\/(?:[^/]+\/console|operator)(?:[/?]|$)/;

const FORM = 'application/x-www-form-urlencoded';

/** A form's fields; a name sent several times (checkboxes) gives a list. */
function parseForm(text: string): FormBody {
  const form: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(text)) {
    const earlier = form[name];
    form[name] = earlier === undefined ? value : [earlier, value].flat();
  }
  return form;
}

/**
 * The pages as one plugin, with their own rules beside the API's: forms (not JSON) for bodies, a CSP
 * for pages, cookies, a token in every form, and refusals answered as pages in the person's language.
 */
export async function pagesPlugin(app: FastifyInstance, options: PagesOptions): Promise<void> {
  const { languages } = options;
  const csrf: CsrfTokens = csrfTokens(options.csrfKey);
  const organizations = organizationsRepository(options.db);
  await app.register(cookie);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => done(null, parseForm(body as string)));
  app.addContentTypeParser('*', (request, _payload, done) => done(hasBody(request) ? pageErrors.badRequest() : null, undefined));

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('content-security-policy', CONSOLE_PATH.test(request.url) ? CONSOLE_POLICY : PAGE_POLICY);
    done();
  });

  /** The language and messages of a request: the person's locale first, else the browser's. */
  function messagesOf(request: FastifyRequest, locale?: string | null): { language: string; t: Messages } {
    const language = languageOf(languages, locale ?? undefined, request.headers['accept-language']);
    return { language, t: languages.get(language)! };
  }

  function sendPage(reply: FastifyReply, statusCode: number, body: Html): FastifyReply {
    return reply.code(statusCode).type('text/html; charset=utf-8').send(body.text);
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { language, t } = messagesOf(request);
    const context: PageContext = { t, language, csrf: '' };
    let refusal: PageError;
    if (error instanceof PageError) refusal = error;
    else if (error instanceof DomainError) refusal = pageRefusal(error);
    else {
      const answer = refusalFor(error, request);
      refusal =
        answer.statusCode === 413
          ? new PageError(
              413,
              (t) => t.errors.somethingWrong,
              (t) => t.errors.tooLarge,
            )
          : answer.statusCode < 500
            ? new PageError(
                answer.statusCode,
                (t) => t.errors.somethingWrong,
                (t) => t.errors.badRequest,
              )
            : new PageError(
                answer.statusCode,
                (t) => t.errors.somethingWrong,
                (t) => t.errors.tryAgain,
              );
      if (answer.headers['Retry-After']) reply.header('retry-after', answer.headers['Retry-After']);
    }
    if (error instanceof PageError || error instanceof DomainError) request.log.info({ statusCode: refusal.statusCode }, 'page refused');
    sendPage(reply, refusal.statusCode, page(context, { title: refusal.title(t), body: html`<p>${refusal.text(t)}</p>` }));
  });
  app.setNotFoundHandler((request, reply) => {
    const { language, t } = messagesOf(request);
    const refusal = pageErrors.notFound();
    sendPage(reply, 404, page({ t, language, csrf: '' }, { title: refusal.title(t), body: html`<p>${refusal.text(t)}</p>` }));
  });

  app.get(STYLESHEET_ROUTE, { config: { scope: 'none' }, schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=31536000, immutable').type('text/css; charset=utf-8').send(STYLESHEET_TEXT),
  );

  /**
   * An organization's request: the organization (404 for none), the person's session if any, the
   * page context, and for a POST the form, whose token must be this browser's (403 otherwise).
   */
  async function organizationRequest(request: FastifyRequest, reply: FastifyReply): Promise<OrganizationRequest> {
    const { orgId } = request.params as { orgId: string };
    const organization = isId(orgId) ? await organizations.find(orgId) : undefined;
    if (!organization) throw pageErrors.notFound();
    const session = await options.sessions.resume(orgId, request.cookies[cookieNames.session(orgId)]);
    const { language, t } = messagesOf(request, session?.locale);
    const form = (request.body ?? {}) as FormBody;
    if (request.method === 'POST' && !(await csrf.verify(request, form._csrf))) throw pageErrors.expiredForm();
    const context: PageContext = {
      t,
      language,
      organization: { id: organization.id, name: organization.name },
      ...(session ? { person: { name: displayName(session) } } : {}),
      csrf: await csrf.issue(request, reply),
    };
    return { organization: context.organization!, ...(session ? { session } : {}), context, form };
  }

  const shared: PageRoutesOptions = {
    ...options,
    csrf,
    organizationRequest,
    messagesOf,
    sendPage: (reply, statusCode, context, content) => sendPage(reply, statusCode, page(context, content)),
    addressOf: (request) => addressKey(request.ip),
  };
  signInRoutes(app, shared);
  accountRoutes(app, shared);
  resetRoutes(app, shared);
  if (options.oidc) interactionRoutes(app, shared);
  for (const routes of options.extraRoutes ?? []) routes(app, shared);
}
