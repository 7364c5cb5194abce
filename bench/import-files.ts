/**
 * The HR files and organizations of the import benches (import-memory.ts, import-heap.ts): a file of
 * people with three userfield values each, and a fresh organization with those three userfields.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Caller } from '../src/auth/caller.js';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import { COMMAND_LINE_ACTOR } from '../src/lib/actors.js';
import { organizationsRepository } from '../src/tenancy/organizations.repository.js';
import { userfieldsService } from '../src/resources/userfields/userfields.service.js';
import { postgresDatabase } from './processes.js';

const DEPARTMENTS = ['Sales', 'Support', 'Finance', 'Engineering'];

/** An HR file of `people` rows, written a block at a time. */
export function hrFile(dir: string, people: number): string {
  const file = path.join(dir, `people-${people}.csv`);
  writeFileSync(file, 'Email,First Name,Last Name,Tags,Department,Employee number,Start date\n');
  const BLOCK = 50_000;
  for (let first = 0; first < people; first += BLOCK) {
    const lines: string[] = [];
    for (let n = first; n < Math.min(people, first + BLOCK); n++) {
      const start = `${String((n % 12) + 1).padStart(2, '0')}/${String((n % 28) + 1).padStart(2, '0')}/${2000 + (n % 25)}`;
      lines.push(`person${n}@hr.example,Person,Number ${n},staff,${DEPARTMENTS[n % DEPARTMENTS.length]},${n + 1},${start}\n`);
    }
    writeFileSync(file, lines.join(''), { flag: 'a' });
  }
  return file;
}

/** A fresh database with an organization of the file's three userfields; its URL, the organization and how to drop it. */
export async function freshOrganization(dir: string, name: string) {
  const postgres = process.env.BENCH_POSTGRES_URL ? await postgresDatabase(process.env.BENCH_POSTGRES_URL, 'import_memory') : undefined;
  const url = postgres ? postgres.url : `sqlite:${path.join(dir, `${name}.db`)}`;
  const { db, close } = openDatabase(url);
  try {
    await migrateToLatest(db);
    const org = await organizationsRepository(db).create(name);
    const caller: Caller = { orgId: org.id, tokenId: 'bench', scopes: ['read', 'write'], actor: COMMAND_LINE_ACTOR };
    const fields = userfieldsService(db);
    await fields.create(caller, {
      type: 'dropdown',
      name: 'Department',
      categoryName: 'HR',
      options: DEPARTMENTS.map((option) => ({ name: option })),
    });
    await fields.create(caller, { type: 'number', name: 'Employee number', categoryName: 'HR' });
    await fields.create(caller, { type: 'date', name: 'Start date', categoryName: 'HR' });
    return { url, orgId: org.id, drop: async () => postgres?.drop() };
  } finally {
    await close();
  }
}
