import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import type { Account, Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { SessionsService } from '../accounts/sessions.service.js';
import { SCOPES } from '../auth/scopes.js';
import type { Database } from '../db/schema.js';
import { serverKey } from '../db/server-keys.js';
import { clientsService, type ClientInfo } from '../oauth/clients.service.js';
import { registrationsRepository } from '../resources/registrations/registrations.repository.js';
import { usersRepository } from '../resources/users/users.repository.js';
import { databaseAdapter } from './adapter.js';

/** The provider's endpoints, beside the client credentials' /oauth/token and /oauth/revoke: one authorization server. */
export const OIDC_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  userinfo: '/oauth/userinfo',
  jwks: '/oauth/jwks',
  end_session: '/oauth/logout',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
} as const;
export const DISCOVERY_PATH = '/.well-known/openid-configuration';

/** The scopes a sign-in client may ask for, and the claims each gives. */
const CLAIMS = {
  openid: ['sub'],
  email: ['email'],
  profile: ['name', 'given_name', 'family_name', 'preferred_username', 'locale', 'updated_at', 'account_type'],
  /** The offerings the person is registered for, while the registration is active: a course player asks at each launch. */
  registrations: ['active_offerings'],
};

/** What the provider needs of the rest of the server. */
export interface OidcSettings {
  db: Kysely<Database>;
  sessions: SessionsService;
  /** The cookie that holds a person's session at an organization (pages/cookies.ts). */
  sessionCookie: (orgId: string) => string;
  /** Where the pages of an interaction (the sign-in of an application) are. */
  interactionUrl: (orgId: string, uid: string) => string;
  /** The pages' refusal of a request the provider cannot serve (an unknown client, a bad redirect URI). */
  renderError: (ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }) => Promise<void>;
  /** The page that asks a person whether to sign out. */
  logoutSource: (ctx: KoaContextWithOIDC, form: string) => Promise<void>;
  postLogoutSuccessSource: (ctx: KoaContextWithOIDC) => Promise<void>;
  /** The person signed out through an application: their sessions at the organizations end too. */
  onSignOut: (ctx: KoaContextWithOIDC, accountId: string) => Promise<void>;
  /** Behind a TLS-terminating proxy: believe X-Forwarded-Proto. */
  proxy: boolean;
  clock?: () => number;
}

/** How long a client's lookup is kept (an organization's clients rarely change; a revocation is seen within this). */
const CLIENT_CACHE_MS = 5_000;

/** The signing keys: RS256, which every client takes by default, and ES256. Private JWKs, made once for every instance. */
async function signingKeys(db: Kysely<Database>) {
  return serverKey(db, 'oidc-signing-keys', () => {
    const made = (type: 'rsa' | 'ec', alg: string) => {
      const { privateKey } =
        type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
      return { ...privateKey.export({ format: 'jwk' }), alg, use: 'sig', kid: `${alg.toLowerCase()}-${randomBytes(6).toString('base64url')}` };
    };
    return { keys: [made('rsa', 'RS256'), made('ec', 'ES256')] };
  });
}

/**
 * The OpenID Connect provider (oidc-provider, OpenID Certified): authorization code with PKCE,
 * Discovery, JWKS, userinfo, RP-initiated logout, introspection and revocation. The library owns the
 * protocol; the server gives it the organizations' sign-in clients, the people (`findAccount`), the
 * storage (the database), the keys, and its pages for the sign-in itself. One provider per origin the
 * server answers at (PUBLIC_URL's, else each allowed host's), all sharing the same state and keys.
 */
export function oidcProviders(settings: OidcSettings) {
  const { db } = settings;
  const clock = settings.clock ?? Date.now;
  const clients = clientsService(db);
  const clientCache = new Map<string, { at: number; client: ClientInfo | undefined }>();
  async function clientOf(clientId: string): Promise<ClientInfo | undefined> {
    const kept = clientCache.get(clientId);
    if (kept && clock() - kept.at < CLIENT_CACHE_MS) return kept.client;
    const client = await clients.find(clientId);
    clientCache.set(clientId, { at: clock(), client });
    if (clientCache.size > 10_000) clientCache.delete(clientCache.keys().next().value!);
    return client;
  }
  const orgOf = async (ctx: KoaContextWithOIDC) => {
    const clientId = ctx.oidc?.client?.clientId;
    return clientId ? (await clientOf(clientId))?.orgId : undefined;
  };

  /** The person an account id (a user id) names, at the organization of the client asking: never another organization's. */
  async function findAccount(ctx: KoaContextWithOIDC, sub: string, token?: { iat?: number; clientId?: string }): Promise<Account | undefined> {
    const clientId = ctx.oidc?.client?.clientId ?? token?.clientId;
    const orgId = clientId ? (await clientOf(clientId))?.orgId : undefined;
    if (!orgId) return undefined;
    const users = usersRepository(db);
    const user = await users.find(orgId, sub);
    if (!user || !user.active) return undefined;
    // A token issued before a password change or a sign-out everywhere no longer names anyone.
    const validAfter = await users.sessionsValidAfter(orgId, sub);
    if (token?.iat !== undefined && validAfter !== undefined && token.iat * 1000 <= Date.parse(validAfter)) return undefined;
    return {
      accountId: sub,
      async claims(_use, scope) {
        const scopes = new Set(scope.split(' '));
        const name = [user.first_name, user.last_name].filter(Boolean).join(' ');
        return {
          sub,
          email: user.email,
          ...(name ? { name } : {}),
          ...(user.first_name ? { given_name: user.first_name } : {}),
          ...(user.last_name ? { family_name: user.last_name } : {}),
          ...(user.username ? { preferred_username: user.username } : {}),
          ...(user.locale ? { locale: user.locale } : {}),
          updated_at: Math.floor(Date.parse(user.updated_date) / 1000),
          account_type: user.account_type ?? 'learner',
          ...(scopes.has('registrations') ? { active_offerings: await registrationsRepository(db).activeOfferingIds(orgId, sub) } : {}),
        };
      },
    };
  }

  /**
   * The library is loaded when the first provider is made (the first request of a sign-in client or of
   * discovery), not at start: a server whose organizations sign nobody in never loads it.
   */
  const library = () => import('oidc-provider');

  /** The interaction policy: the library's, with the sign-in asking for the person's session at the organization, whatever the provider's own cookie says. */
  async function interactionPolicyOf(): Promise<NonNullable<NonNullable<Configuration['interactions']>['policy']>> {
    const { interactionPolicy } = await library();
    const { Check } = interactionPolicy;
    const ownSession = new Check('own_session', 'the person is not signed in at the organization', async (ctx) => {
      const orgId = await orgOf(ctx);
      if (!orgId) return Check.REQUEST_PROMPT;
      const session = await settings.sessions.resume(orgId, ctx.cookies.get(settings.sessionCookie(orgId), { signed: false }));
      return session && session.user_id === ctx.oidc.session?.accountId ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT;
    });
    const policy = interactionPolicy.base();
    policy.get('login')!.checks.add(ownSession);
    return policy;
  }

  async function configuration(): Promise<Configuration> {
    const cookieKeys = await serverKey(db, 'oidc-cookie-keys', () => [randomBytes(32).toString('base64url')]);
    return {
      adapter: databaseAdapter(db, clientOf, clock),
      findAccount,
      jwks: await signingKeys(db),
      claims: CLAIMS,
      scopes: ['openid', 'offline_access', ...Object.keys(CLAIMS).filter((scope) => scope !== 'openid')],
      // The claims of the scopes granted go in the ID token too: a course player reads them at the sign-in.
      conformIdTokenClaims: false,
      routes: OIDC_ROUTES,
      responseTypes: ['code'],
      pkce: { required: () => true },
      clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
      enabledJWA: { idTokenSigningAlgValues: ['RS256', 'ES256'], userinfoSigningAlgValues: ['RS256', 'ES256'] },
      features: {
        devInteractions: { enabled: false },
        pushedAuthorizationRequests: { enabled: false },
        introspection: { enabled: true },
        revocation: { enabled: true },
        userinfo: { enabled: true },
        rpInitiatedLogout: {
          enabled: true,
          logoutSource: async (ctx, form) => settings.logoutSource(ctx, form),
          postLogoutSuccessSource: async (ctx) => settings.postLogoutSuccessSource(ctx),
        },
      },
      extraClientMetadata: { properties: ['urn:training-api:organization'] },
      cookies: {
        keys: cookieKeys,
        names: { session: 'oidc_session', interaction: 'oidc_interaction', resume: 'oidc_interaction_resume' },
        long: { httpOnly: true, sameSite: 'lax', secure: true },
        short: { httpOnly: true, sameSite: 'lax', secure: true },
      },
      ttl: {
        AccessToken: 10 * 60,
        AuthorizationCode: 60,
        IdToken: 10 * 60,
        Interaction: 30 * 60,
        RefreshToken: 14 * 24 * 3600,
        Grant: 14 * 24 * 3600,
        Session: 10 * 3600,
      },
      interactions: {
        policy: await interactionPolicyOf(),
        url: async (ctx, interaction) => settings.interactionUrl((await orgOf(ctx))!, interaction.uid),
      },
      // The organization's own applications: every scope they ask for is granted, without a consent page (but for a
      // native or browser app, which anyone can imitate: its person confirms each sign-in, see pages/interaction.routes.ts).
      async loadExistingGrant(ctx) {
        const { oidc } = ctx;
        const accountId = oidc.session?.accountId;
        if (!accountId) return undefined;
        const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client!.clientId);
        const grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
        const current = grant && grant.accountId === accountId ? grant : new oidc.provider.Grant({ clientId: oidc.client!.clientId, accountId });
        current.addOIDCScope([...oidc.requestParamScopes].join(' '));
        const claims = oidc.claims as { id_token?: Record<string, unknown>; userinfo?: Record<string, unknown> };
        current.addOIDCClaims([...Object.keys(claims.id_token ?? {}), ...Object.keys(claims.userinfo ?? {})]);
        await current.save();
        return current;
      },
      renderError: async (ctx, out) => settings.renderError(ctx, out),
      // A refresh token for applications that ask for one (offline_access), or that run without a secret.
      async issueRefreshToken(_ctx, client, code) {
        return client.grantTypeAllowed('refresh_token') && (code.scopes.has('offline_access') || client.clientAuthMethod === 'none');
      },
      discovery: { scopes_supported: undefined },
    };
  }

  const providers = new Map<string, Promise<Provider>>();

  async function create(issuer: string): Promise<Provider> {
    const { default: Provider } = await library();
    const provider = new Provider(issuer, await configuration());
    provider.proxy = settings.proxy;
    // The secret presented is compared by its hash: the server keeps nothing else (adapter.ts).
    provider.Client.prototype.compareClientSecret = function compareClientSecret(this: { clientId: string }, actual: string) {
      return clients.hasSecret(this.clientId, actual);
    };
    // The discovery document tells of the whole authorization server: the client credentials grant and the API's scopes too.
    provider.use(async (ctx, next) => {
      await next();
      if ((ctx as KoaContextWithOIDC).oidc?.route === 'discovery' && ctx.body && typeof ctx.body === 'object') {
        const document = ctx.body as Record<string, string[] | undefined>;
        document.grant_types_supported = [...(document.grant_types_supported ?? []), 'client_credentials'];
        document.scopes_supported = [...(document.scopes_supported ?? []), ...SCOPES];
      }
    });
    // A sign-out confirmed through an application ends the person's session at the pages too: else the next sign-in would pass unasked.
    provider.use(async (ctx, next) => {
      await next();
      const { oidc } = ctx as KoaContextWithOIDC;
      // The session destroyed still names its account.
      const accountId = oidc?.route === 'end_session_confirm' && oidc.params?.logout ? oidc.session?.accountId : undefined;
      if (accountId) await settings.onSignOut(ctx as KoaContextWithOIDC, accountId);
    });
    return provider;
  }

  return {
    /** The provider of an issuer (an origin), made when first asked for. */
    providerFor(issuer: string): Promise<Provider> {
      let provider = providers.get(issuer);
      if (!provider) {
        provider = create(issuer);
        provider.catch(() => providers.delete(issuer));
        providers.set(issuer, provider);
      }
      return provider;
    },
    clientOf,
  };
}

export type OidcProviders = ReturnType<typeof oidcProviders>;
