/**
 * The statements PostgreSQL keeps prepared on each connection: the few that run on almost every
 * request (the token by its hash, a user by id, an event row, the webhooks of an organization),
 * registered by `compiledOnce` when it compiles them. A registered text is sent as a named statement
 * (parsed and planned once per connection, then only bound and executed); every other statement goes
 * unnamed as before, so what each connection keeps is bounded by this short list, whatever the lists
 * and filters ask for.
 *
 * Named statements live in a server session: behind a pooler in transaction mode that does not track
 * them (PgBouncer before 1.21, or without `max_prepared_statements`) they would be looked for on
 * another server connection, so DATABASE_POOL_MODE=transaction turns them off unless
 * DATABASE_PREPARED_STATEMENTS=on says the pooler supports them.
 */
const names = new Map<string, string>();

/** Sends `sql` as a named statement from now on (on pools that prepare statements). */
export function prepareStatement(sql: string): void {
  if (!names.has(sql)) names.set(sql, `training_api_${names.size + 1}`);
}

/** The name `sql` is prepared under, if it is one of the registered statements. */
export function preparedName(sql: string): string | undefined {
  return names.get(sql);
}
