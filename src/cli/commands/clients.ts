import { clientsService } from '../../oauth/clients.service.js';
import { organizationOf, scopesOption, table, UsageError, type Context } from '../command.js';

/** `clients create`, `list` and `revoke`: OAuth 2.0 clients, through their service. */

export async function create({ db, values, print }: Context): Promise<number> {
  const orgId = await organizationOf(db, values.org);
  const { secret, info } = await clientsService(db).create(orgId, {
    name: values.name,
    scopes: scopesOption(values.scopes),
    redirectUris: values['redirect-uri'],
    postLogoutRedirectUris: values['post-logout-redirect-uri'],
    public: values.public,
  });
  print({ clientId: info.id, ...(secret ? { clientSecret: secret } : {}), ...info }, secret ? `${info.id}\t${secret}` : info.id);
  return 0;
}

export async function list({ db, values, print }: Context): Promise<number> {
  const clients = await clientsService(db).list(await organizationOf(db, values.org));
  const columns = ['id', 'name', 'scopes', 'redirectUris', 'createdDate', 'lastUsedDate', 'revokedDate'];
  print(clients, table(clients as unknown as Record<string, unknown>[], columns));
  return 0;
}

export async function revoke({ db, args, print }: Context): Promise<number> {
  const info = await clientsService(db).revoke(args[0]!);
  if (!info) throw new UsageError(`No OAuth client has the id ${args[0]}`);
  print(info, info.id);
  return 0;
}
