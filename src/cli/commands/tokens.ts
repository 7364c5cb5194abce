import { tokensService } from '../../auth/tokens.service.js';
import { organizationOf, scopesOption, table, UsageError, type Context } from '../command.js';

/** `tokens create`, `list`, `revoke` and `rotate`, through the tokens service. */

export async function create({ db, values, print }: Context): Promise<number> {
  const orgId = await organizationOf(db, values.org);
  const expiresDate = values.expires ? new Date(values.expires) : undefined;
  if (expiresDate && Number.isNaN(expiresDate.getTime())) throw new UsageError(`--expires must be an ISO 8601 date (got "${values.expires}")`);
  // A token that expired before it was shown could only fail every request.
  if (expiresDate && expiresDate.getTime() <= Date.now()) throw new UsageError(`--expires must be in the future (got "${values.expires}")`);
  const { token, info } = await tokensService(db).create(orgId, { name: values.name, scopes: scopesOption(values.scopes), expiresDate });
  print({ token, ...info }, token);
  return 0;
}

export async function list({ db, values, print }: Context): Promise<number> {
  const tokens = await tokensService(db).list(await organizationOf(db, values.org));
  const columns = ['id', 'name', 'scopes', 'createdDate', 'lastUsedDate', 'expiresDate', 'revokedDate'];
  print(tokens, table(tokens as unknown as Record<string, unknown>[], columns));
  return 0;
}

export async function revoke({ db, args, print }: Context): Promise<number> {
  const tokens = tokensService(db);
  const before = await tokens.find(args[0]!);
  if (!before) throw new UsageError(`No token has the id ${args[0]}`);
  if (before.revokedDate) {
    print(before, `Token ${before.id} was already revoked on ${before.revokedDate}`);
    return 0;
  }
  const info = (await tokens.revoke(before.id))!;
  print(info, `Token ${info.id} revoked`);
  return 0;
}

export async function rotate({ db, args, values, print, io }: Context): Promise<number> {
  const rotated = await tokensService(db).rotate(args[0]!);
  if (rotated === 'unknown') throw new UsageError(`No token has the id ${args[0]}`);
  if (rotated === 'revoked') throw new UsageError(`token ${args[0]} is revoked; create a new one with \`training-api tokens create\``);
  if (!values.json) io.err(`Token ${args[0]} revoked; its replacement ${rotated.info.id} (shown only this once):`);
  print({ token: rotated.token, ...rotated.info, replaces: args[0] }, rotated.token);
  return 0;
}
