import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** The organization's sign-ins of `at`'s day (UTC) go up by one: written in the sign-in's unit of work, so a refused one counts none. */
export async function countSignIn(trx: Kysely<Database>, orgId: string, at: string): Promise<void> {
  await trx
    .insertInto('sign_in_days')
    .values({ org_id: orgId, day: at.slice(0, 10), sign_ins: 1 })
    .onConflict((conflict) => conflict.columns(['org_id', 'day']).doUpdateSet({ sign_ins: sql<number>`sign_in_days.sign_ins + 1` }))
    .execute();
}

/** The days from `from` to `to` (`yyyy-mm-dd`, both included) on which someone of the organization signed in, with how many sign-ins. */
export async function signInsPerDay(db: Kysely<Database>, orgId: string, from: string, to: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('sign_in_days')
    .select(['day', 'sign_ins'])
    .where('org_id', '=', orgId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .execute();
  return new Map(rows.map((row) => [row.day, Number(row.sign_ins)]));
}
