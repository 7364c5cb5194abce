/**
 * How long a page of SCIM groups takes, and how many statements it issues: an organization of USERS
 * people (default 10,000) and GROUPS groups (default 100), most people in one to three groups, some
 * in none, their group tags in the case the group has or in lower case as v5 clients may write them.
 * Each request (a page of every group, with and without members, and one group alone) goes through the
 * app's routing (in-process `inject`, so no network is counted), ROUNDS times (default 15) after a
 * warm-up; the figures are medians. First, each group of the page must be exactly what its own read answers.
 *
 *   npm run build && node dist/bench/scim-group-pages.js                                 # SQLite
 *   TEST_POSTGRES_URL=postgres://... node dist/bench/scim-group-pages.js                 # and PostgreSQL (a schema of its own, dropped after)
 */
import { performance } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { tokensService } from '../src/auth/tokens.service.js';
import type { Engine } from '../src/db/database.js';
import { newId } from '../src/lib/ids.js';
import { toTimestamp } from '../src/lib/time.js';
import { organizationsRepository } from '../src/tenancy/organizations.repository.js';
import { createTestDatabase, ENGINES } from '../test/helpers/database.js';
import type { ChangeTime } from '../src/db/unit-of-work.js';
import { DEFAULT_PASSWORD_POLICY } from '../src/lib/password-policy.js';

const USERS = Number(process.env.USERS ?? 10_000);
const GROUPS = Number(process.env.GROUPS ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const INSERT_BATCH = 500;

/** A fixed sequence of pseudo-random numbers in [0, 1), so that every run holds the same memberships. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Person n's tags: a v5 tag, then the tags of 0 to 3 groups (5% none, 70% one, 20% two, 5% three). */
function tagsOf(next: () => number): string {
  const draw = next();
  const count = draw < 0.05 ? 0 : draw < 0.75 ? 1 : draw < 0.95 ? 2 : 3;
  const tags = [next() < 0.5 ? 'staff' : 'contractor'];
  while (tags.length < count + 1) {
    const group = Math.floor(next() * GROUPS);
    const tag = next() < 0.2 ? `team_${group}` : `Team_${group}`;
    if (!tags.some((t) => t.toLowerCase() === tag.toLowerCase())) tags.push(tag);
  }
  return tags.join(' ');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(engine: Engine): Promise<void> {
  let statements: string[] | undefined;
  const database = await createTestDatabase(engine, { onStatement: (sql) => statements?.push(sql) });
  const app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: database.db });
  try {
    await app.ready();
    const org = await organizationsRepository(database.db).create('Group pages');
    const token = (await tokensService(database.db).create(org.id, { scopes: ['scim'] })).token;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' };

    const next = random(7);
    const start = Date.parse('2025-01-01T00:00:00Z');
    for (let first = 0; first < USERS; first += INSERT_BATCH) {
      const rows = Array.from({ length: Math.min(INSERT_BATCH, USERS - first) }, (_, k) => {
        const n = first + k;
        const at = toTimestamp(new Date(start + n * 1000)) as ChangeTime;
        const email = `person${n}@groups.example`;
        return {
          org_id: org.id,
          id: newId(),
          email,
          email_key: email,
          username: email,
          username_key: email,
          tags: tagsOf(next),
          active: true,
          password_change_required: false,
          created_date: at,
          updated_date: at,
        };
      });
      await database.db.insertInto('users').values(rows).execute();
    }
    const groupIds: string[] = [];
    for (let n = 0; n < GROUPS; n++) {
      const response = await app.inject({ method: 'POST', url: '/scim/v2/Groups', headers, payload: JSON.stringify({ displayName: `Team ${n}` }) });
      if (response.statusCode !== 201) throw new Error(`POST /Groups answered ${response.statusCode}: ${response.body}`);
      groupIds.push(response.json().id);
    }
    const get = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: headers.authorization } });

    // The figures count only if the page shows each group as its own read does.
    for (const group of (await get(`/scim/v2/Groups?count=${GROUPS}`)).json().Resources) {
      const read = await get(`/scim/v2/Groups/${group.id}`);
      if (read.body !== JSON.stringify(group) || read.headers.etag !== group.meta.version)
        throw new Error(`The page shows ${group.displayName} otherwise than GET /Groups/{id}`);
    }

    const one = `/scim/v2/Groups/${groupIds[0]}`;
    for (const url of [
      `/scim/v2/Groups?count=${GROUPS}&excludedAttributes=members`,
      `/scim/v2/Groups?count=${GROUPS}`,
      `${one}?excludedAttributes=members`,
      one,
    ]) {
      for (let n = 0; n < 3; n++) await get(url);
      const times: number[] = [];
      let count = 0;
      let bytes = 0;
      for (let n = 0; n < ROUNDS; n++) {
        statements = [];
        const began = performance.now();
        const response = await get(url);
        times.push(performance.now() - began);
        if (response.statusCode !== 200) throw new Error(`GET ${url} answered ${response.statusCode}: ${response.body}`);
        count = statements.length;
        bytes = response.body.length;
        statements = undefined;
      }
      console.log(
        `${engine.padEnd(8)} GET ${url.slice('/scim/v2'.length).replace(groupIds[0]!, '{id}').padEnd(50)} median ${median(times).toFixed(1).padStart(7)} ms ` +
          `(min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)}, ${ROUNDS} runs), ${count} statements, ${bytes} bytes`,
      );
    }
  } finally {
    statements = undefined;
    await app.close();
    await database.drop();
  }
}

console.log(`${USERS} users, ${GROUPS} groups`);
for (const engine of ENGINES) await measure(engine);
