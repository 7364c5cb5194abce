import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import writeXlsxFile, { type Row } from 'write-excel-file/node';
import type { Caller } from '../auth/caller.js';
import type { Database } from '../db/schema.js';
import { userfieldValuesRepository } from '../resources/userfield-values/userfield-values.repository.js';
import { usersService } from '../resources/users/users.service.js';
import { PROPERTIES, toCell, toSpreadsheetCell, valueFields } from './columns.js';
import type { Format } from './file-rows.js';

const USERS_PER_PAGE = 1000;

/** The export's columns (properties, then userfields by name or id) and each user's record, page by page. */
async function* exportedRecords(db: Kysely<Database>, caller: Caller, columns: readonly string[], columnOfField: ReadonlyMap<string, string>) {
  const users = usersService(db);
  for (let offset = 0; ; offset += USERS_PER_PAGE) {
    const page = (await users.list(caller, {}, { limit: USERS_PER_PAGE, offset })).slice(0, USERS_PER_PAGE);
    const values = new Map<string, { userfield_id: string; value: string }[]>();
    for (const row of await userfieldValuesRepository(db).ofUsers(
      caller.orgId,
      page.map((user) => user.id),
    )) {
      const held = values.get(row.user_id);
      if (held) held.push(row);
      else values.set(row.user_id, [row]);
    }
    for (const user of page) {
      const record: Record<string, unknown> = {};
      for (const property of columns.slice(0, PROPERTIES.length - 1)) {
        const value = user[property as keyof typeof user];
        if (value !== undefined) record[property] = value;
      }
      for (const value of values.get(user.id) ?? []) record[columnOfField.get(value.userfield_id)!] = JSON.parse(value.value);
      yield record;
    }
    if (page.length < USERS_PER_PAGE) return;
  }
}

/**
 * Writes every user of the organization, with its userfield values, in the format `importUsers` reads;
 * `excel` writes CSV as Excel reads it right: UTF-8 with a byte order mark, CRLF line ends. A
 * workbook is written whole once every user is read. The caller ends `output`.
 */
export async function exportUsers(db: Kysely<Database>, caller: Caller, format: Format, output: Writable, excel = false): Promise<number> {
  const fields = await valueFields(db, caller.orgId);
  const columnOfField = new Map(fields.map(({ field, column }) => [field.id, column]));
  const typeOfColumn = new Map(fields.map(({ field, column }) => [column, field.type]));
  const columns = [...PROPERTIES.filter((property) => property !== 'password'), ...fields.map(({ column }) => column)];
  // A reader that stops early (`| head`) closes the pipe: the export then simply ends.
  let failure: (Error & { code?: string }) | undefined;
  output.on('error', (error) => (failure ??= error));
  const write = async (content: string | Buffer) => {
    if (!failure && !output.write(content)) await once(output, 'drain').catch(() => undefined);
  };
  const lineEnds = excel ? ({ record_delimiter: 'windows' } as const) : {};
  if (excel) await write('\uFEFF');
  if (format === 'csv') await write(stringify([], { header: true, columns, ...lineEnds }));
  const sheet: Row[] = [columns];
  let count = 0;
  for await (const record of exportedRecords(db, caller, columns, columnOfField)) {
    if (failure) break;
    if (format === 'xlsx') {
      sheet.push(
        columns.map((column) => (record[column] === undefined ? null : toSpreadsheetCell(record[column], column, typeOfColumn.get(column)))),
      );
    } else {
      const cells = Object.fromEntries(Object.entries(record).map(([column, value]) => [column, toCell(value, column)]));
      await write(format === 'csv' ? stringify([cells], { columns, ...lineEnds }) : `${JSON.stringify(record)}\n`);
    }
    count++;
  }
  if (format === 'xlsx') await write(await writeXlsxFile(sheet, { sheet: 'Users', dateFormat: 'mm/dd/yyyy' }).toBuffer());
  if (failure && failure.code !== 'EPIPE') throw failure;
  return count;
}
