import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import type { Database } from '../db/schema.js';
import { userfieldValuesRepository } from '../resources/userfield-values/userfield-values.repository.js';
import { usersService } from '../resources/users/users.service.js';
import { PROPERTIES, toCell, valueFields } from './columns.js';
import type { Format } from './file-rows.js';

const USERS_PER_PAGE = 1000;

/**
 * Writes every user of the organization, with its userfield values, in the format `importUsers` reads;
 * `excel` writes CSV as Excel reads it right: UTF-8 with a byte order mark, CRLF line ends. The caller ends `output`.
 */
export async function exportUsers(db: Kysely<Database>, caller: Caller, format: Format, output: Writable, excel = false): Promise<number> {
  const fields = await valueFields(db, caller.orgId);
  const columnOfField = new Map(fields.map(({ field, column }) => [field.id, column]));
  const columns = [...PROPERTIES.filter((property) => property !== 'password'), ...fields.map(({ column }) => column)];
  // A reader that stops early (`| head`) closes the pipe: the export then simply ends.
  let failure: (Error & { code?: string }) | undefined;
  output.on('error', (error) => (failure ??= error));
  const write = async (text: string) => {
    if (!failure && !output.write(text)) await once(output, 'drain').catch(() => undefined);
  };
  const lineEnds = excel ? ({ record_delimiter: 'windows' } as const) : {};
  if (excel) await write('\uFEFF');
  if (format === 'csv') await write(stringify([], { header: true, columns, ...lineEnds }));
  const users = usersService(db);
  let count = 0;
  for (let offset = 0; !failure; offset += USERS_PER_PAGE) {
    const page = (await users.list(caller, {}, { limit: USERS_PER_PAGE, offset })).slice(0, USERS_PER_PAGE);
    const values = new Map<string, { userfield_id: string; value: string }[]>();
    for (const row of await userfieldValuesRepository(db).ofUsers(
      caller.orgId,
      page.map((user) => user.id),
    )) {
      values.set(row.user_id, [...(values.get(row.user_id) ?? []), row]);
    }
    for (const user of page) {
      const record: Record<string, unknown> = {};
      for (const property of columns.slice(0, PROPERTIES.length - 1)) {
        const value = user[property as keyof typeof user];
        if (value !== undefined) record[property] = value;
      }
      for (const value of values.get(user.id) ?? []) record[columnOfField.get(value.userfield_id)!] = JSON.parse(value.value);
      const cells = Object.fromEntries(Object.entries(record).map(([column, value]) => [column, toCell(value, column)]));
      await write(format === 'csv' ? stringify([cells], { columns, ...lineEnds }) : `${JSON.stringify(record)}\n`);
      count++;
    }
    if (page.length < USERS_PER_PAGE) break;
  }
  if (failure && failure.code !== 'EPIPE') throw failure;
  return count;
}
