import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { entityTagOf } from '../../src/http/conditional-requests.js';
import { verifyPassword } from '../../src/lib/passwords.js';
import { usersService } from '../../src/resources/users/users.service.js';
import { seedUsers } from '../../src/tenancy/seed.js';
import { forEachEngine } from '../helpers/harness.js';
import { ScimClient, scimError } from '../scim/scim-client.js';
import { TEST_ACTOR } from '../helpers/actors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

const PASSWORD_MESSAGE = 'The password must be 6 to 64 characters long and contain at least one letter and one number';

forEachEngine('users', (h) => {
  it('creates a user: 201, absolute Location, empty body; reads it back without the password', async () => {
    const response = await h.post('users', {
      email: 'Ada@Example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      username: 'ada',
      password: 'engine1',
      locale: 'en-GB',
      tags: ['math, poetry', 'math'],
    });
    assert.equal(response.statusCode, 201);
    assert.equal(response.body, '');
    assert.equal(response.headers['content-length'], '0');
    const location = String(response.headers.location);
    assert.match(location, /^http:\/\/localhost(:\d+)?\/api\/v5\/users\/[0-9a-f]{32}$/);

    const read = await h.get(location.slice(location.indexOf('/api/v5')));
    assert.equal(read.statusCode, 200);
    const user = read.json();
    assert.deepEqual(Object.keys(user).sort(), [
      'active',
      'createdDate',
      'email',
      'firstName',
      'id',
      'lastName',
      'locale',
      'tags',
      'updatedDate',
      'username',
    ]);
    assert.equal(user.active, true);
    assert.equal(user.updatedDate, user.createdDate);
    assert.equal(user.email, 'Ada@Example.com');
    assert.deepEqual(user.tags, ['math', 'poetry']);
    assert.match(user.createdDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(read.body.includes('engine1'), false);
  });

  it('omits properties without a value', async () => {
    const id = await h.create('users', { email: 'bare@example.com' });
    const user = (await h.get(`users/${id}`)).json();
    assert.deepEqual(Object.keys(user).sort(), ['active', 'createdDate', 'email', 'id', 'updatedDate']);
  });

  it('stores the password hashed with argon2id at the OWASP parameters, on create and on update', async () => {
    const id = await h.create('users', { email: 'hash@example.com', password: 'letter1' });
    const stored = async () =>
      (await h.database.db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirstOrThrow()).password_hash!;
    const created = await stored();
    assert.match(created, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.equal(created.includes('letter1'), false);
    assert.equal(await verifyPassword('letter1', created), true);
    assert.equal((await h.put(`users/${id}`, { password: 'letter2' })).statusCode, 204);
    const updated = await stored();
    assert.notEqual(updated, created);
    assert.equal(await verifyPassword('letter2', updated), true);
    assert.equal(await verifyPassword('letter1', updated), false);
  });

  it('reports every field error at once with the verbatim messages', async () => {
    const response = await h.post('users', { email: 'not-an-email', password: 'short', firstName: 7, locale: 'english', color: 'red' });
    assert.equal(response.statusCode, 400);
    const body = response.json();
    assert.equal(typeof body.message, 'string');
    assert.equal(body.fieldErrors.email, 'Invalid email address');
    assert.equal(body.fieldErrors.password, PASSWORD_MESSAGE);
    assert.ok(body.fieldErrors.firstName);
    assert.ok(body.fieldErrors.locale);
    assert.equal(body.fieldErrors.color, 'unknown property');
  });

  it('takes email addresses by the WHATWG HTML rule on create, update and the email filter', async () => {
    const refused = [
      'a<script>@x.y',
      'a,b@c.d',
      'x@-.-',
      'not-an-email',
      '"quoted"@example.com',
      'a b@c.d',
      'a@b..c',
      'a@-b.c',
      'a@b-.c',
      'é@example.com',
    ];
    const id = await h.create('users', { email: 'valid@example.com' });
    for (const email of refused) {
      const answers = {
        create: await h.post('users', { email }),
        update: await h.put(`users/${id}`, { email }),
        filter: await h.get('users', { query: { email } }),
      };
      for (const [request, response] of Object.entries(answers)) {
        assert.equal(response.statusCode, 400, `${request} ${email}`);
        assert.deepEqual(response.json().fieldErrors, { email: 'Invalid email address' }, `${request} ${email}`);
      }
    }
    assert.equal((await h.get(`users/${id}`)).json().email, 'valid@example.com');
    const accepted = ["o'brien+tag@mail.example.co.uk", 'user@localhost', 'x@1-2.example', "!#$%&'*+/=?^_`{|}~-@example.com"];
    for (const email of accepted) {
      assert.equal((await h.post('users', { email })).statusCode, 201, email);
      assert.equal((await h.get('users', { query: { email } })).json().results[0]?.email, email);
    }
    assert.equal((await h.put(`users/${id}`, { email: 'still.valid@example.com' })).statusCode, 204);
  });

  it('requires an email', async () => {
    const response = await h.post('users', { firstName: 'Nomail' });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().fieldErrors.email, 'required');
  });

  it('applies the password policy: 6 to 64 characters, a letter and a number', async () => {
    for (const password of ['abcde1', 'a'.repeat(63) + '1', 'ünïcø1', 'p@ss w0rd!']) {
      const response = await h.post('users', { email: `ok${password.length}${Math.random()}@example.com`, password });
      assert.equal(response.statusCode, 201, password);
    }
    for (const password of ['abcd1', 'a'.repeat(64) + '1', 'abcdefg', '1234567', '']) {
      const response = await h.post('users', { email: 'policy@example.com', password });
      assert.equal(response.statusCode, 400, password);
      assert.equal(response.json().fieldErrors.password, PASSWORD_MESSAGE);
    }
  });

  it('keeps email and username unique per organization, case-insensitively, and names both conflicts', async () => {
    await h.create('users', { email: 'taken@example.com', username: 'Taken' });
    const response = await h.post('users', { email: 'TAKEN@example.com', username: 'taken' });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json().fieldErrors, { email: 'is already in use', username: 'is already in use' });

    const other = await h.createOrganization('Other');
    assert.equal((await h.post('users', { email: 'taken@example.com', username: 'taken' }, { token: other.token })).statusCode, 201);
  });

  it('updates partially: 204, unsent properties kept, tags replaced, blanks clear', async () => {
    const id = await h.create('users', { email: 'part@example.com', firstName: 'Part', lastName: 'Ial', tags: ['a', 'b'], locale: 'fr' });
    const response = await h.put(`users/${id}`, { lastName: 'Ially', tags: ['c d'], locale: null, firstName: '' });
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    const user = (await h.get(`users/${id}`)).json();
    assert.equal(user.lastName, 'Ially');
    assert.deepEqual(user.tags, ['c', 'd']);
    assert.equal(user.firstName, undefined);
    assert.equal(user.locale, undefined);
    assert.equal(user.email, 'part@example.com');
  });

  it('accepts back what it read: read-only properties are ignored on PUT', async () => {
    const id = await h.create('users', { email: 'roundtrip@example.com', firstName: 'Round' });
    const user = (await h.get(`users/${id}`)).json();
    const response = await h.put(`users/${id}`, {
      ...user,
      id: 'ffffffffffffffffffffffffffffffff',
      createdDate: '1999-01-01T00:00:00Z',
      firstName: 'Trip',
    });
    assert.equal(response.statusCode, 204);
    const after = (await h.get(`users/${id}`)).json();
    assert.equal(after.firstName, 'Trip');
    assert.equal(after.createdDate, user.createdDate);
  });

  it("refuses an email already used by another user on update, but not the user's own", async () => {
    await h.create('users', { email: 'first@example.com' });
    const id = await h.create('users', { email: 'second@example.com' });
    assert.equal((await h.put(`users/${id}`, { email: 'FIRST@example.com' })).json().fieldErrors.email, 'is already in use');
    assert.equal((await h.put(`users/${id}`, { email: 'Second@Example.com' })).statusCode, 204);
  });

  it('resets a password on update and validates it', async () => {
    const id = await h.create('users', { email: 'reset@example.com', password: 'first1' });
    const before = await h.database.db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal((await h.put(`users/${id}`, { password: 'second2' })).statusCode, 204);
    const after = await h.database.db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirstOrThrow();
    assert.notEqual(after.password_hash, before.password_hash);
    assert.equal((await h.put(`users/${id}`, { password: 'nodigits' })).json().fieldErrors.password, PASSWORD_MESSAGE);
    assert.equal((await h.put(`users/${id}`, { email: null })).statusCode, 400);
  });

  it('deletes a user: 204, then 404 on every verb', async () => {
    const id = await h.create('users', { email: 'gone@example.com' });
    assert.equal((await h.delete(`users/${id}`)).statusCode, 204);
    for (const response of [await h.get(`users/${id}`), await h.put(`users/${id}`, { firstName: 'x' }), await h.delete(`users/${id}`)]) {
      assert.equal(response.statusCode, 404);
      assert.deepEqual(response.json(), { errors: ['No resource exists with the given id.'] });
    }
  });

  it('answers 404 for ids of any other form', async () => {
    for (const id of ['123', 'ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ', '0'.repeat(32), `${'a'.repeat(31)}G`]) {
      assert.equal((await h.get(`users/${id}`)).statusCode, 404);
    }
  });

  it("never shows one organization's users to another", async () => {
    const id = await h.create('users', { email: 'private@example.com' });
    const other = await h.createOrganization('Elsewhere');
    const as = { token: other.token };
    assert.equal((await h.get(`users/${id}`, as)).statusCode, 404);
    assert.equal((await h.put(`users/${id}`, { firstName: 'Hacked' }, as)).statusCode, 404);
    assert.equal((await h.delete(`users/${id}`, as)).statusCode, 404);
    assert.deepEqual((await h.get('users', { ...as, query: { email: 'private@example.com' } })).json(), { results: [] });
    assert.equal((await h.get(`users/${id}`)).json().firstName, undefined);
  });
});

forEachEngine('users: lists, filters and paging', (h) => {
  let org: { id: string; token: string };
  const ids: string[] = [];

  it('reads 100 users back in pages of 7, each exactly once, in creation order', async () => {
    org = await h.createOrganization('Paging');
    for (let i = 0; i < 100; i += 1) {
      ids.push(
        await h.create(
          'users',
          { email: `user${i}@example.com`, firstName: i % 2 ? 'Odd' : 'Even', tags: i % 10 === 0 ? ['ten', 'round'] : ['other'] },
          { token: org.token },
        ),
      );
    }
    const seen: string[] = [];
    let url: string | undefined = '/api/v5/users?limit=7';
    let pages = 0;
    while (url) {
      const response = await h.get(url.slice(url.indexOf('/api/v5')), { token: org.token });
      assert.equal(response.statusCode, 200);
      const page = response.json();
      assert.ok(page.results.length <= 7);
      seen.push(...page.results.map((user: { id: string }) => user.id));
      if (pages > 0) assert.equal(page.prev, page.previous);
      url = page.next;
      pages += 1;
    }
    assert.equal(pages, 15);
    assert.deepEqual(seen, ids);
  });

  it('builds absolute next and prev that keep the other query parameters', async () => {
    const page = (await h.get('users', { token: org.token, query: { firstName: 'odd', limit: '5', offset: '7' } })).json();
    assert.equal(page.results.length, 5);
    // A later page is read through the ids of the filtered list: the same users as that list's slice.
    const everyOdd = (await h.get('users', { token: org.token, query: { firstName: 'odd', limit: '100' } })).json();
    assert.deepEqual(
      page.results.map((user: { id: string }) => user.id),
      everyOdd.results.slice(7, 12).map((user: { id: string }) => user.id),
    );
    const next = new URL(page.next);
    assert.equal(next.pathname, '/api/v5/users');
    assert.equal(next.searchParams.get('firstName'), 'odd');
    assert.equal(next.searchParams.get('limit'), '5');
    assert.equal(next.searchParams.get('offset'), '12');
    assert.equal(new URL(page.prev).searchParams.get('offset'), '2');
    const first = (await h.get('users', { token: org.token, query: { limit: '3' } })).json();
    assert.equal(first.prev, undefined);
    const last = (await h.get('users', { token: org.token, query: { limit: '10', offset: '90' } })).json();
    assert.equal(last.results.length, 10);
    assert.equal(last.next, undefined);
  });

  it('defaults to 15 per page', async () => {
    assert.equal((await h.get('users', { token: org.token })).json().results.length, 15);
  });

  it('filters by exact email (case-insensitive), substrings, tags and dates', async () => {
    const find = async (query: Record<string, string>) =>
      (await h.get('users', { token: org.token, query: { limit: '100', ...query } })).json().results as { id: string; email: string }[];
    assert.deepEqual(
      (await find({ email: 'USER7@example.com' })).map((u) => u.id),
      [ids[7]],
    );
    assert.equal((await find({ email: 'user7@example' })).length, 0);
    assert.equal((await find({ firstName: 'DD' })).length, 50);
    assert.equal((await find({ tags: 'ten' })).length, 10);
    assert.equal((await find({ tags: 'ROUND,ten' })).length, 10);
    assert.equal((await find({ tags: 'ten other' })).length, 0);
    assert.equal((await find({ firstName: 'odd', tags: 'other' })).length, 50);
    const year = new Date().getUTCFullYear();
    assert.equal((await find({ createdDate: String(year) })).length, 100);
    assert.equal((await find({ createdDate: `${year - 1}` })).length, 0);
    assert.equal((await find({ createdDate: `${year - 1}/..` })).length, 100);
    assert.equal((await find({ createdDate: `../${year - 1}` })).length, 0);
    assert.equal((await find({ lastLoginDate: `${year}` })).length, 0);
  });

  it('takes date filters as JavaScript and other languages write them: fractional seconds, numeric offsets', async () => {
    const find = async (createdDate: string) =>
      (await h.get('users', { token: org.token, query: { limit: '100', createdDate } })).json().results as unknown[];
    const hourAgo = new Date(Date.now() - 3_600_000);
    assert.equal((await find(`${hourAgo.toISOString()}/..`)).length, 100);
    assert.equal((await find(`../${hourAgo.toISOString().replace('Z', '+00:00')}`)).length, 0);
    const inParis = new Date(hourAgo.getTime() + 7_200_000).toISOString().replace('Z', '+02:00');
    assert.equal((await find(`${inParis}/..`)).length, 100);
    const encoded = await h.get(`users?limit=100&createdDate=${inParis.replace('+', '%2B')}/..`, { token: org.token });
    assert.equal(encoded.json().results.length, 100);
    // An unencoded + arrives as a space, and still means +.
    const plusAsSpace = await h.get(`users?limit=100&createdDate=${inParis}/..`, { token: org.token });
    assert.equal(plusAsSpace.statusCode, 200);
    assert.equal(plusAsSpace.json().results.length, 100);
  });

  it('treats LIKE wildcards in filters as plain characters', async () => {
    await h.create('users', { email: 'percent@example.com', lastName: '100% Sure_Thing' }, { token: org.token });
    const query = (lastName: string) => h.get('users', { token: org.token, query: { lastName } });
    assert.equal((await query('0% s')).json().results.length, 1);
    assert.equal((await query('%')).json().results.length, 1);
    assert.equal((await query('e_t')).json().results.length, 1);
    assert.equal((await query('_')).json().results.length, 1);
    assert.equal((await query('e%t')).json().results.length, 0);
  });

  it('rejects bad filters with the field named', async () => {
    const response = await h.get('users', { token: org.token, query: { createdDate: 'yesterday', limit: '0', offset: '-1', nickname: 'x' } });
    assert.equal(response.statusCode, 400);
    const { fieldErrors } = response.json();
    assert.deepEqual(Object.keys(fieldErrors).sort(), ['createdDate', 'limit', 'nickname', 'offset']);
    assert.match(fieldErrors.createdDate, /2013-10-23T00:48:50Z/);
  });
});

forEachEngine('users: the page the database writes as JSON', (h) => {
  it('answers byte for byte what serializing the users does: absent properties, booleans, tags, escapes, links, ETags', async () => {
    const org = await h.createOrganization('JSON pages');
    const awkward = [
      'Quote " and backslash \\ and slash /',
      'Line\nfeed, tab\t, return\r, form\f, backspace\b, bell\u0007, escape\u001b, delete\u007f',
      ',{"id":"not-a-boundary"}',
      'Émile 李 🎓 \u2028\u2029 <script>&amp;',
      '',
    ];
    const ids: string[] = [];
    for (const [i, name] of awkward.entries()) {
      ids.push(
        await h.create(
          'users',
          {
            email: `json${i}@example.com`,
            firstName: name,
            ...(i % 2 ? { lastName: `${name} II`, username: `user_${i}`, locale: 'fr-CA', tags: ['a"b', 'c\\d', 'é'] } : { lastName: '' }),
          },
          { token: org.token },
        ),
      );
    }
    // A user with every property and nothing to escape: PostgreSQL writes its strings as they are (migration 0018).
    const plain = await h.create(
      'users',
      { email: 'plain@example.com', firstName: 'Ada', lastName: 'Lovelace', username: 'ada', locale: 'en-GB', tags: ['math', 'engines'] },
      { token: org.token },
    );
    ids.push(plain);
    // One character to escape each, in one property each, so that every kind must be told apart on its own;
    // and characters JSON.stringify leaves as they are (DEL, U+2028, non-ASCII), which may be written verbatim.
    const oneEscape = [
      { firstName: 'only "a quote' },
      { lastName: 'only \\ a backslash' },
      { username: 'only\u0001control' },
      { tags: ['only\u001fcontrol'] },
    ];
    const escapedOnce: string[] = [];
    for (const [i, properties] of oneEscape.entries()) {
      escapedOnce.push(await h.create('users', { email: `escape${i}@example.com`, ...properties }, { token: org.token }));
    }
    const unescaped = await h.create('users', { email: 'unescaped@example.com', firstName: 'del\u007f \u2028 Émile 李 🎓' }, { token: org.token });
    ids.push(...escapedOnce, unescaped);
    assert.equal((await h.put(`users/${ids[1]}`, { active: false }, { token: org.token })).statusCode, 204);
    await h.database.db.updateTable('users').set({ last_login_date: '2026-01-02T03:04:05Z' }).where('id', 'in', [ids[2]!, plain]).execute();
    if (h.engine === 'postgres') {
      const { rows } = await sql<{ id: string; json_verbatim: boolean }>`select id, json_verbatim from users where org_id = ${org.id}`.execute(
        h.database.db,
      );
      assert.deepEqual(
        rows
          .filter((row) => row.json_verbatim)
          .map((row) => row.id)
          .sort(),
        [ids[4]!, plain, unescaped].sort(),
      );
    }
    const caller = { orgId: org.id, tokenId: 'test', scopes: ['read' as const], actor: TEST_ACTOR };
    const users = usersService(h.database.db, DEFAULT_PASSWORD_POLICY);
    for (const [query, paging] of [
      ['limit=2', { limit: 2, offset: 0 }],
      ['limit=2&offset=2', { limit: 2, offset: 2 }],
      ['limit=2&offset=4', { limit: 2, offset: 4 }],
      ['limit=100', { limit: 100, offset: 0 }],
      ['limit=5&offset=9', { limit: 5, offset: 9 }],
      ['limit=100&firstName=%22', { limit: 100, offset: 0 }],
    ] as const) {
      const response = await h.get(`users?${query}`, { token: org.token });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      const { results: _, ...links } = response.json();
      const filters = query.includes('firstName') ? { firstName: '"' } : {};
      const expected = (await users.list(caller, filters, paging)).slice(0, paging.limit);
      // What the route answered before the database wrote the JSON: the users as the service renders them, in their order of properties.
      assert.equal(response.body, JSON.stringify({ results: expected, ...links }), query);
      assert.equal(String(response.headers['content-length']), String(Buffer.byteLength(response.body)));
    }
    for (const id of ids) {
      // A user's GET (written by the database on SQLite) and its ETag, which a write's If-Match compares with the service's.
      const response = await h.get(`users/${id}`, { token: org.token });
      const expected = await users.get(caller, id);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(response.body, JSON.stringify(expected));
      assert.equal(response.headers.etag, entityTagOf(expected));
    }
  });
});

forEachEngine('users: the index of their JSON (SQLite)', (h) => {
  /**
   * The indexes SQLite's plan of `statement` reads, with values like the route's bound (its plan depends on
   * them): the organization's id for `org_id`, 2 for a limit or an offset, 1 for any other parameter.
   */
  async function indexesOf(statement: string, orgId: string): Promise<string[]> {
    const parameters = [...statement.matchAll(/(\S+)\s+(?:= )?\?/g)].map(([, before]) =>
      /org_id"?$/.test(before!) ? orgId : /^(?:limit|offset)$/.test(before!) ? 2 : 1,
    );
    const plan = await h.database.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${statement}`, parameters));
    return plan.rows.flatMap((row) => /USING (?:COVERING )?INDEX (\S+)/.exec(row.detail)?.[1] ?? []);
  }

  it("serves the first page from the index of the users' JSON, and no other statement of their order", async (t) => {
    if (h.engine !== 'sqlite') return t.skip('PostgreSQL writes the JSON in the statement');
    const org = await h.createOrganization('JSON index');
    await seedUsers(h.database.db, org.id, 2_000, DEFAULT_PASSWORD_POLICY);
    // The planner's case that took it for a later page: statistics for every index of the table but this one,
    // as in a database analyzed (by a seed or an import) before its migration to 0017.
    await sql`analyze`.execute(h.database.db);
    await sql`delete from sqlite_stat1 where idx = 'users_created_json'`.execute(h.database.db);
    await sql`delete from sqlite_stat4 where idx = 'users_created_json'`.execute(h.database.db);
    await sql`analyze sqlite_schema`.execute(h.database.db);
    for (const [query, first] of [
      ['limit=2', true],
      ['limit=100&offset=1900', false],
      ['limit=100&offset=1900&active=true', false],
    ] as const) {
      const statements = await h.statementsOf(async () => assert.equal((await h.get(`users?${query}`, { token: org.token })).statusCode, 200));
      const reads = statements.filter((statement) => /from "?users"? .*order by "?created_date"?, "?id"?/.test(statement));
      assert.equal(reads.length, 1, `${query}: ${reads.join(' / ')}`);
      const indexes = await indexesOf(reads[0]!, org.id);
      assert.equal(indexes.includes('users_created_json'), first, `${query}: ${indexes.join(', ')}`);
    }
  });
});

forEachEngine(
  'users with PASSWORD_MIN_LENGTH=10',
  (h) => {
    const message = 'The password must be 10 to 64 characters long and contain at least one letter and one number';

    it('refuses shorter passwords on create and update with the message naming the configured length', async () => {
      assert.equal((await h.post('users', { email: 'ten@example.com', password: 'abcdefghi1' })).statusCode, 201);
      const id = await h.create('users', { email: 'nine@example.com' });
      for (const response of [
        await h.post('users', { email: 'short@example.com', password: 'abcdefgh1' }),
        await h.put(`users/${id}`, { password: 'abcdefgh1' }),
      ]) {
        assert.equal(response.statusCode, 400);
        assert.deepEqual(response.json().fieldErrors, { password: message });
      }
      assert.deepEqual((await h.post('users', { email: 'typed@example.com', password: 1234567890 })).json().fieldErrors, { password: message });
    });

    it('keeps to its own policy, through SCIM too, when an app with another policy is built in the same process', async () => {
      const lenient = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: h.database.db });
      try {
        const short = { email: 'nine.characters@example.com', password: 'abcdefgh1' };
        const refused = await h.post('users', short);
        assert.equal(refused.statusCode, 400);
        assert.deepEqual(refused.json().fieldErrors, { password: message });
        const scim = await ScimClient.of(h);
        const scimRefused = scimError(await scim.post('/Users', { userName: short.email, password: short.password }), 400, 'invalidValue');
        assert.match(scimRefused.detail, /password: The password must be 10 to 64 characters/);
        const accepted = await lenient.inject({
          method: 'POST',
          url: '/api/v5/users',
          headers: { authorization: `Bearer ${h.org.token}` },
          payload: short,
        });
        assert.equal(accepted.statusCode, 201, accepted.body);
      } finally {
        await lenient.close();
      }
    });
  },
  { passwordPolicy: { minLength: 10 } },
);

it('reads PASSWORD_MIN_LENGTH: 6 by default, up to 64, never below 6', () => {
  assert.deepEqual(loadConfig({}).passwordPolicy, { minLength: 6 });
  assert.deepEqual(loadConfig({ PASSWORD_MIN_LENGTH: '8' }).passwordPolicy, { minLength: 8 });
  for (const bad of ['5', '65', '8.5', 'eight', '']) assert.throws(() => loadConfig({ PASSWORD_MIN_LENGTH: bad }), /PASSWORD_MIN_LENGTH/, bad);
});
