import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.js';
import type { Database } from '../db/schema.js';
import { userfieldValuesRepository } from '../resources/userfield-values/userfield-values.repository.js';
import { usersRepository, type UserKey } from '../resources/users/users.repository.js';
import { toResponse } from '../resources/users/users.service.js';
import { PROPERTIES, toCell, toSpreadsheetCell, valueFields } from './columns.js';
import type { Format } from './file-reader.js';
import { writeWorkbook } from './workbook-writer.js';

const USERS_PER_PAGE = 1000;

/** What a spreadsheet takes for the start of a formula, or of a line, at the start of a cell (OWASP, "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * A CSV cell a spreadsheet will not run: one starting with `=`, `+`, `-`, `@`, a tab or a carriage
 * return gets an apostrophe before it, as OWASP's page on CSV injection says (a plain number, `-5`,
 * is no formula and stays one). The import takes the apostrophe off again (delimited.ts).
 */
export const neutralised = (cell: string) => (FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell);

/**
 * The export's columns (properties, then userfields by name or id) and each user's record, page by
 * page in creation order, each page from the last one's key: memory holds a page, however many users.
 */
async function* exportedRecords(db: Kysely<Database>, caller: Caller, columns: readonly string[], columnOfField: ReadonlyMap<string, string>) {
  // Read as the API lists them (its order, its JSON); an export writes nothing, so it needs no service's rules.
  const users = usersRepository(db);
  const values = userfieldValuesRepository(db);
  for (let after: UserKey | undefined; ;) {
    const rows = await users.inCreationOrder(caller.orgId, USERS_PER_PAGE, after);
    const last = rows.at(-1);
    if (last) after = { createdDate: last.created_date, id: last.id };
    const page = rows.map(toResponse);
    const valuesOf = new Map<string, { userfield_id: string; value: string }[]>();
    for (const row of await values.ofUsers(
      caller.orgId,
      page.map((user) => user.id),
    )) {
      const held = valuesOf.get(row.user_id);
      if (held) held.push(row);
      else valuesOf.set(row.user_id, [row]);
    }
    const records = page.map((user) => {
      const record: Record<string, unknown> = {};
      for (const property of columns.slice(0, PROPERTIES.length - 1)) {
        const value = user[property as keyof typeof user];
        if (value !== undefined) record[property] = value;
      }
      for (const value of valuesOf.get(user.id) ?? []) record[columnOfField.get(value.userfield_id)!] = JSON.parse(value.value);
      return record;
    });
    yield records;
    if (rows.length < USERS_PER_PAGE) return;
  }
}

/**
 * Writes every user of the organization, with its userfield values, in the format `importUsers` reads;
 * `excel` writes CSV as Excel reads it right: UTF-8 with a byte order mark, CRLF line ends. CSV
 * cells that a spreadsheet would take for a formula are neutralised (`neutralised`). Every format
 * is written a page of users at a time, as fast as `output` takes it: a workbook too
 * (workbook-writer.ts). The caller ends `output`; a destination that closes or fails ends the export.
 */
export async function exportUsers(db: Kysely<Database>, caller: Caller, format: Format, output: Writable, excel = false): Promise<number> {
  const fields = await valueFields(db, caller.orgId);
  const columnOfField = new Map(fields.map(({ field, column }) => [field.id, column]));
  const typeOfColumn = new Map(fields.map(({ field, column }) => [column, field.type]));
  const columns = [...PROPERTIES.filter((property) => property !== 'password'), ...fields.map(({ column }) => column)];
  // A reader that stops early (`| head`, a download cancelled) closes the destination: the export then simply ends.
  let failure: (Error & { code?: string }) | undefined;
  let closed = output.destroyed;
  output.on('error', (error) => (failure ??= error));
  output.on('close', () => (closed = true));
  const stopped = () => closed || failure !== undefined;
  const write = async (content: string | Buffer) => {
    if (stopped() || output.write(content)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        output.off('drain', done).off('close', done);
        resolve();
      };
      output.on('drain', done).on('close', done);
    });
  };
  let count = 0;
  async function* pages() {
    for await (const records of exportedRecords(db, caller, columns, columnOfField)) {
      if (stopped()) return;
      count += records.length;
      yield records;
    }
  }
  if (format === 'xlsx') {
    async function* rows() {
      yield columns;
      for await (const records of pages()) {
        for (const record of records) {
          yield columns.map((column) => (record[column] === undefined ? null : toSpreadsheetCell(record[column], column, typeOfColumn.get(column))));
        }
      }
    }
    await writeWorkbook('Users', rows(), write);
  } else {
    const lineEnds = excel ? ({ record_delimiter: 'windows' } as const) : {};
    if (excel) await write('\uFEFF');
    if (format === 'csv') await write(stringify([], { header: true, columns, ...lineEnds }));
    for await (const records of pages()) {
      const text =
        format === 'csv'
          ? stringify(
              records.map((record) =>
                Object.fromEntries(Object.entries(record).map(([column, value]) => [column, neutralised(toCell(value, column))])),
              ),
              { columns, ...lineEnds },
            )
          : records.map((record) => `${JSON.stringify(record)}\n`).join('');
      await write(text);
    }
  }
  if (failure && failure.code !== 'EPIPE') throw failure;
  return count;
}
