import type { Kysely } from 'kysely';
import { now } from '../lib/time.js';
import type { Database } from './schema.js';

/**
 * A key of the server's own, made by whichever instance asks first and read by every other: `make` runs
 * at most once per name in the database's life (a second instance racing the first keeps the first's).
 */
export async function serverKey<T>(db: Kysely<Database>, name: string, make: () => T | Promise<T>): Promise<T> {
  const stored = await db.selectFrom('server_keys').select('value').where('name', '=', name).executeTakeFirst();
  if (stored) return JSON.parse(stored.value) as T;
  const made = await make();
  await db
    .insertInto('server_keys')
    .values({ name, value: JSON.stringify(made), created_date: now() })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const kept = await db.selectFrom('server_keys').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return JSON.parse(kept.value) as T;
}
