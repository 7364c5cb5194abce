import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DEFAULT_SCOPES, type Scope } from '../auth/scopes.js';
import { hashSecret, newSecret, SECRET_PREFIXES } from '../auth/secrets.js';
import type { Database } from '../db/schema.js';
import { changeTime, inTransaction } from '../db/unit-of-work.js';
import { SERVER_ACTOR } from '../lib/actors.js';
import { isId, newId } from '../lib/ids.js';
import { Invalid } from '../lib/domain-errors.js';
import { now } from '../lib/time.js';
import { tokensRepository } from '../auth/tokens.repository.js';
import { tokensService } from '../auth/tokens.service.js';
import { clientsRepository, type OAuthClientRow } from './clients.repository.js';
import { oauthErrors } from './oauth-errors.js';

export interface ClientInfo {
  /** The `client_id` of RFC 6749. */
  id: string;
  orgId: string;
  name: string;
  /** What its API tokens may carry (client credentials); a token request may narrow it. None for a client that signs people in. */
  scopes: Scope[];
  /** A client that signs people in (authorization code with PKCE): where it may be sent back. */
  redirectUris?: string[];
  /** Where it may send a person after signing them out. */
  postLogoutRedirectUris?: string[];
  /** A native or browser app without a secret (PKCE alone). */
  public?: true;
  createdDate: string;
  lastUsedDate?: string;
  revokedDate?: string;
}

const words = (column: string | null) => (column ? column.split(' ') : undefined);

function toInfo(row: OAuthClientRow): ClientInfo {
  const redirectUris = words(row.redirect_uris);
  const postLogoutRedirectUris = words(row.post_logout_redirect_uris);
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    scopes: (row.scopes ? row.scopes.split(',') : []) as Scope[],
    ...(redirectUris ? { redirectUris } : {}),
    ...(postLogoutRedirectUris ? { postLogoutRedirectUris } : {}),
    ...(row.public ? { public: true as const } : {}),
    createdDate: row.created_date,
    ...(row.last_used_date ? { lastUsedDate: row.last_used_date } : {}),
    ...(row.revoked_date ? { revokedDate: row.revoked_date } : {}),
  };
}

/**
 * Why a redirect URI is refused, or undefined (RFC 6749 §3.1.2, RFC 8252 for native apps): an https
 * URL; http only to a loopback address (`http://127.0.0.1:<port>/...`, a native app's own listener);
 * or a private-use scheme in reverse domain form (`com.example.app:/callback`). Never a fragment.
 */
export function redirectUriProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not an absolute URL`;
  }
  if (url.hash !== '' || text.includes('#')) return `"${text}" must not hold a fragment (#)`;
  if (url.username !== '' || url.password !== '') return `"${text}" must not hold a user name or password`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    return ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname)
      ? undefined
      : `"${text}" must be https; http is allowed to a loopback address only (http://127.0.0.1:<port>/..., RFC 8252 §7.3)`;
  }
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol)
    ? undefined
    : `"${text}" must be https, http to 127.0.0.1, or a private-use scheme in reverse domain form such as com.example.app:/callback`;
}

/** A new client: one that gets API tokens (scopes), or one that signs people in (redirect URIs). */
export interface NewClient {
  name?: string;
  scopes?: readonly Scope[];
  redirectUris?: readonly string[];
  postLogoutRedirectUris?: readonly string[];
  /** A sign-in client without a secret, for native and browser apps. */
  public?: boolean;
}

interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  scopes: readonly Scope[];
}

/** The same refusal whether the client is unknown, revoked or its secret wrong: nothing to probe. */
const CLIENT_REFUSED = 'Client authentication failed';

export function clientsService(db: Kysely<Database>) {
  const clients = clientsRepository(db);
  return {
    /**
     * Creates a client; its secret is returned this once and only its SHA-256 hash is kept (a public
     * client has none). A client with redirect URIs signs people in and gets no API token.
     */
    async create(orgId: string, options: NewClient = {}): Promise<{ secret?: string; info: ClientInfo }> {
      const redirectUris = [...new Set(options.redirectUris ?? [])];
      const postLogout = [...new Set(options.postLogoutRedirectUris ?? [])];
      const signsIn = redirectUris.length > 0;
      const problems = [...redirectUris, ...postLogout].map(redirectUriProblem).filter((problem) => problem !== undefined);
      if (problems.length > 0) throw new Invalid({ redirectUris: problems.join('; ') });
      if (signsIn && options.scopes !== undefined)
        throw new Invalid({ scopes: 'a client that signs people in (with redirect URIs) gets no API scopes' });
      if (!signsIn && (options.public || postLogout.length > 0))
        throw new Invalid({ redirectUris: 'a public client, or one with post-logout redirect URIs, signs people in: give it redirect URIs' });
      const secret = options.public ? undefined : newSecret(SECRET_PREFIXES.clientSecret);
      const row: OAuthClientRow = {
        org_id: orgId,
        id: newId(),
        name: options.name ?? (signsIn ? 'Sign-in client' : 'OAuth client'),
        // A public client's hash is of a secret nobody was given.
        secret_hash: hashSecret(secret ?? newSecret(SECRET_PREFIXES.clientSecret)),
        scopes: signsIn ? '' : (options.scopes ?? DEFAULT_SCOPES).join(','),
        created_date: now(),
        last_used_date: null,
        revoked_date: null,
        redirect_uris: signsIn ? redirectUris.join(' ') : null,
        post_logout_redirect_uris: postLogout.length > 0 ? postLogout.join(' ') : null,
        public: options.public ?? false,
      };
      await clients.insert(row);
      return { ...(secret ? { secret } : {}), info: toInfo(row) };
    },

    /**
     * Gives the client a new secret, shown this once; the old one stops working at once (the tokens it
     * got stay valid until they expire). Undefined for no such client of the organization, a revoked
     * or a public one.
     */
    async rotateSecret(orgId: string, clientId: string): Promise<{ secret: string; info: ClientInfo } | undefined> {
      const row = isId(clientId) ? await clients.findById(clientId) : undefined;
      if (!row || row.org_id !== orgId || row.revoked_date || row.public) return undefined;
      const secret = newSecret(SECRET_PREFIXES.clientSecret);
      await clients.setSecretHash(orgId, clientId, hashSecret(secret));
      return { secret, info: toInfo(row) };
    },

    /** The client by id, whatever its state, or undefined. */
    async find(clientId: string): Promise<ClientInfo | undefined> {
      const row = isId(clientId) ? await clients.findById(clientId) : undefined;
      return row && toInfo(row);
    },

    /** Whether `secret` is the client's (compared by hash, in constant time). */
    async hasSecret(clientId: string, secret: string): Promise<boolean> {
      const row = isId(clientId) ? await clients.findById(clientId) : undefined;
      return row !== undefined && !row.public && timingSafeEqual(Buffer.from(row.secret_hash), Buffer.from(hashSecret(secret)));
    },

    async list(orgId: string): Promise<ClientInfo[]> {
      return (await clients.list(orgId)).map(toInfo);
    },

    /** Revokes the client and, in the same transaction, every token issued to it: they fail from their next request. */
    async revoke(clientId: string, orgId?: string): Promise<ClientInfo | undefined> {
      const row = isId(clientId) ? await clients.findById(clientId) : undefined;
      if (!row || (orgId !== undefined && row.org_id !== orgId)) return undefined;
      await inTransaction(db, SERVER_ACTOR, async (trx) => {
        const at = changeTime(trx);
        await clientsRepository(trx).revoke(row.org_id, row.id, at);
        await tokensRepository(trx).revokeClientTokens(row.org_id, row.id, at);
      });
      return toInfo((await clients.findById(clientId))!);
    },

    /** The client whose id and secret these are, or the `invalid_client` refusal. */
    async authenticate(clientId: string, secret: string): Promise<ClientInfo> {
      // An id of another form names no client, and is not sent to the database (PostgreSQL refuses a NUL in it).
      const row = isId(clientId) ? await clients.findById(clientId) : undefined;
      const hash = Buffer.from(hashSecret(secret));
      if (!row || !timingSafeEqual(Buffer.from(row.secret_hash), hash) || row.revoked_date) throw oauthErrors.invalidClient(CLIENT_REFUSED);
      return toInfo(row);
    },

    /** Issues an expiring access token to an authenticated client, with `scopes` (already checked against the client's). */
    async issueToken(client: ClientInfo, scopes: readonly Scope[], lifetimeSeconds: number): Promise<IssuedToken> {
      const at = new Date();
      const issued = await inTransaction(db, SERVER_ACTOR, async (trx) => {
        await tokensRepository(trx).deleteExpiredClientTokens(client.orgId, client.id, now());
        await clientsRepository(trx).touch(client.orgId, client.id, now());
        return tokensService(trx).create(client.orgId, {
          name: client.name,
          scopes,
          expiresDate: new Date(at.getTime() + lifetimeSeconds * 1000),
          clientId: client.id,
        });
      });
      return { accessToken: issued.token, expiresIn: lifetimeSeconds, scopes };
    },
  };
}
