import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Database } from '../db/schema.js';
import type { ClientInfo } from '../oauth/clients.service.js';

/** Where a sign-in client's organization is found, by its id (kept briefly: clients rarely change). */
export type ClientsOf = (clientId: string) => Promise<ClientInfo | undefined>;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * What stands for a confidential client's secret in its metadata: the server keeps only the secret's
 * SHA-256, which the provider's comparison of a presented secret checks instead (provider.ts). Symmetric
 * algorithms, which would need the secret itself, are not offered.
 */
const SECRET_KEPT_HASHED = 'kept-hashed';

/** The client as oidc-provider reads client metadata: only clients that sign people in (with redirect URIs) and are not revoked. */
export function clientMetadata(client: ClientInfo): AdapterPayload | undefined {
  if (!client.redirectUris || client.revokedDate) return undefined;
  const native = client.redirectUris.some((uri) => !uri.startsWith('https:'));
  return {
    client_id: client.id,
    client_name: client.name,
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    application_type: native ? 'native' : 'web',
    ...(client.public
      ? { token_endpoint_auth_method: 'none' }
      : { token_endpoint_auth_method: 'client_secret_basic', client_secret: SECRET_KEPT_HASHED }),
    'urn:training-api:organization': client.orgId,
  };
}

/**
 * oidc-provider's storage: one row per object of one of its models, in the database every instance
 * shares, so that a code issued by one instance is redeemed at another and a sign-out anywhere ends
 * the session everywhere. Clients are not stored here: they are the organization's OAuth clients.
 */
export function databaseAdapter(db: Kysely<Database>, clientsOf: ClientsOf, clock: () => number = Date.now) {
  return class DatabaseAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const clientId = typeof payload.clientId === 'string' ? payload.clientId : undefined;
      const orgId = clientId ? (await clientsOf(clientId))?.orgId : undefined;
      const row = {
        payload: JSON.stringify(payload),
        org_id: orgId ?? null,
        account_id: typeof payload.accountId === 'string' ? payload.accountId.slice(0, 32) : null,
        grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
        uid: typeof payload.uid === 'string' ? payload.uid : null,
        expires_at: expiresIn ? iso(clock() + expiresIn * 1000) : null,
      };
      await db
        .insertInto('oidc_payloads')
        .values({ model: this.model, id, consumed_at: null, ...row })
        .onConflict((conflict) => conflict.columns(['model', 'id']).doUpdateSet(row))
        .execute();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') {
        const client = await clientsOf(id);
        return client && clientMetadata(client);
      }
      return this.read(db.selectFrom('oidc_payloads').where('model', '=', this.model).where('id', '=', id));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.read(db.selectFrom('oidc_payloads').where('model', '=', this.model).where('uid', '=', uid));
    }

    /** Device flows are not offered. */
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await db
        .updateTable('oidc_payloads')
        .set({ consumed_at: iso(clock()) })
        .where('model', '=', this.model)
        .where('id', '=', id)
        .execute();
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oidc_payloads').where('model', '=', this.model).where('id', '=', id).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.deleteFrom('oidc_payloads').where('grant_id', '=', grantId).execute();
    }

    /** The one row a query finds, unless it expired; a consumed one says when it was. */
    private async read(query: ReturnType<typeof db.selectFrom<'oidc_payloads'>>): Promise<AdapterPayload | undefined> {
      const row = await query.select(['payload', 'expires_at', 'consumed_at']).executeTakeFirst();
      if (!row || (row.expires_at !== null && Date.parse(row.expires_at) <= clock())) return undefined;
      const payload = JSON.parse(row.payload) as AdapterPayload;
      return row.consumed_at ? { ...payload, consumed: Math.floor(Date.parse(row.consumed_at) / 1000) } : payload;
    }
  };
}
