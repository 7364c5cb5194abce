import { sql, type RawBuilder, type SqlBool } from 'kysely';

/**
 * Who may register for what, as SQL conditions shared by `GET /offerings?userId=` and
 * `POST /registrations`, so the list and the refusals never disagree.
 */

/** The offering (table or alias `offering`) is open at `at`: within its registration window, a missing bound being open. */
export function openForRegistration(offering: string, at: string): RawBuilder<SqlBool> {
  const begin = sql.ref(`${offering}.registration_begin_date`);
  const end = sql.ref(`${offering}.registration_end_date`);
  return sql<SqlBool>`((${begin} is null or ${begin} <= ${at}) and (${end} is null or ${end} >= ${at}))`;
}

/**
 * The registration keeps its user from registering for its offering again: it is active, or it is
 * graded and the offering allows no retakes. An ejected registration blocks nothing.
 */
export function blocksNewRegistration(registration: string, offering: string): RawBuilder<SqlBool> {
  const status = sql.ref(`${registration}.status`);
  return sql<SqlBool>`(${status} = 'active' or (${status} in ('passed', 'failed') and ${sql.ref(`${offering}.allow_retake`)} = ${false}))`;
}
