/** People written by one statement of bulk SQL, for benches that need an organization of a million. */
import type { Engine } from '../src/db/database.js';

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'John', 'Margaret', 'Dennis'];

/** The id of the i-th person: 32 hex digits, in the order of creation. */
const idSql = (engine: Engine, i: string) => (engine === 'sqlite' ? `printf('%032x', ${i})` : `lpad(to_hex(${i}), 32, '0')`);

/**
 * One statement making `count` people of `orgId`, created a minute apart in 2020-2022 (the i-th one
 * minute after the one before): a tenth of them of each first name, last names `Family<i mod 5000>`
 * (200 people each) but for one `Quill` (the rare name), a tag of a hundred (`team<i mod 100>`), one
 * in a hundred deactivated, one in ten thousand a course administrator.
 */
export function fillSql(engine: Engine, orgId: string, count: number): string {
  const names = FIRST_NAMES.map((name) => `'${name}'`);
  const firstName =
    engine === 'sqlite'
      ? `(case i % 10 ${names.map((name, index) => `when ${index} then ${name}`).join(' ')} end)`
      : `(array[${names.join(',')}])[i % 10 + 1]`;
  const created =
    engine === 'sqlite'
      ? `strftime('%Y-%m-%dT%H:%M:%SZ', 1577836800 + i * 60, 'unixepoch')`
      : `to_char(to_timestamp(1577836800 + i * 60) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
  const columns = `select '${orgId}', ${idSql(engine, 'i')}, ${firstName}, case when i = ${Math.floor(count / 2)} then 'Quill' else 'Family' || (i % 5000) end,
      'person.' || i || '@example.com', 'person.' || i || '@example.com', ${created}, ${created}, i % 100 <> 0, 'team' || (i % 100),
      case when i % 10000 = 0 then 'courseAdministrator' end, false`;
  const insert = `insert into users (org_id, id, first_name, last_name, email, email_key, created_date, updated_date, active, tags, account_type, password_change_required)`;
  return engine === 'sqlite'
    ? `${insert} with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count}) ${columns} from n`
    : `${insert} ${columns} from generate_series(1, ${count}) as i`;
}
