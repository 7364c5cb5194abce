/**
 * What the platform allows for GET /users/{id}, to give the targets context: a minimal Fastify app
 * over HTTPS with the User response schema, answering either a fixed user (`fastify`) or the row read
 * by one cached better-sqlite3 prepared statement (`fastify-sqlite`). No authentication, no hooks,
 * no logging.
 *
 * argv: <fastify|fastify-sqlite> <cert file> <key file> <user JSON> [<SQLite file> <org id>].
 * Sends {port} once listening.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import BetterSqlite3 from 'better-sqlite3';
import Fastify from 'fastify';
import { User } from '../src/resources/users/users.schemas.js';
import { tagsOf } from '../src/lib/tags.js';

const [mode, certFile, keyFile, userJson, databaseFile, orgId] = process.argv.slice(2);
const app = Fastify({ https: { cert: readFileSync(certFile!), key: readFileSync(keyFile!) }, logger: false });
const schema = { response: { 200: User } };

if (mode === 'fastify') {
  const user = JSON.parse(userJson!) as unknown;
  app.get('/api/v5/users/:id', { schema }, async () => user);
} else {
  const database = new BetterSqlite3(databaseFile, { readonly: true });
  // Columns named as the API names them; empty ones are left out, as the users service does.
  const find = database.prepare(
    'select id, first_name as firstName, last_name as lastName, username, email, locale, tags, created_date as createdDate, ' +
      'last_login_date as lastLoginDate, active, updated_date as updatedDate from users where org_id = ? and id = ?',
  );
  app.get<{ Params: { id: string } }>('/api/v5/users/:id', { schema }, async (request, reply) => {
    const row = find.get(orgId, request.params.id) as Record<string, string | number | null> | undefined;
    if (!row) return reply.code(404).send();
    const user: Record<string, unknown> = Object.fromEntries(Object.entries(row).filter(([, value]) => value));
    if (typeof row.tags === 'string') user.tags = tagsOf(row.tags);
    user.active = row.active === 1;
    return user;
  });
}

await app.listen({ host: '127.0.0.1', port: 0 });
process.send!({ port: (app.server.address() as AddressInfo).port });
process.on('disconnect', () => process.exit(0));
