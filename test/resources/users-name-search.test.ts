import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { containsText, lowerCase } from '../../src/db/filters.js';
import { forEachEngine, type Organization } from '../helpers/harness.js';

/** Last names that fold, or not, in awkward ways, and LIKE's own characters. */
const NAMES = [
  'Lovelace',
  'LOVELACE-Byron',
  'Çağla',
  'Cagla',
  'ΣΊΣΥΦΟΣ',
  'σίσυφος',
  'İstanbul',
  'Straße',
  'STRASSE',
  '100% Sure_Thing',
  '1000 Sure Thing',
  'a!b',
  'Say "hi"',
  'Quill',
  'Aquila',
  'Émile',
  'emile',
  '李小龍',
];
/** Three letters or more (the index's), then fewer (GET /users looks for those anywhere too, without it). */
const QUERIES = [
  ...['love', 'LOVE', 'ace-b', 'çağ', 'ÇAĞ', 'cag', 'σίσ', 'ΣΊΣ', 'φοσ', 'φος', 'ista', 'İSTA', 'raß', 'rass', 'RASS'],
  ...['0% s', '% s', 'e_t', '_th', 'a!b', '!b"', '"hi"', 'y "', 'qui', 'uil', 'mil', 'émi', 'ÉMI', '李小龍', 'nobody', 'e%t'],
  ...['lovelace-byron', 'LOVE'.repeat(12)],
  ...['a', 'ab', '%', '_', '!', '"', 'ş', '小龍'],
];

forEachEngine('users: the name filters through their index', (h) => {
  let org: Organization;
  const people = new Map<string, string | undefined>();
  const elsewhere = new Map<string, string>();

  /** Who GET /users finds: the ids of people whose last name holds `text`, case aside, and nobody of another organization. */
  const expected = (text: string, among: Map<string, string | undefined> = people) =>
    [...among]
      .filter(([, name]) => name !== undefined && lowerCase(name).includes(lowerCase(text)))
      .map(([id]) => id)
      .sort();
  const found = async (query: Record<string, string>) => {
    const response = await h.get('users', { token: org.token, query: { limit: '100', ...query } });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json().results as { id: string }[]).map(({ id }) => id).sort();
  };

  before(async () => {
    org = await h.createOrganization('Names');
    const other = await h.createOrganization('Names elsewhere');
    for (const [index, lastName] of NAMES.entries()) {
      people.set(await h.create('users', { email: `name.${index}@example.com`, lastName }, { token: org.token }), lastName);
      elsewhere.set(
        await h.create('users', { email: `name.${index}@example.com`, lastName, username: `same_${index}` }, { token: other.token }),
        lastName,
      );
    }
    people.set(await h.create('users', { email: 'nameless@example.com' }, { token: org.token }), undefined);
  });

  it('finds what a case-insensitive substring finds, wildcards as plain characters, accents as written', async () => {
    for (const text of QUERIES) assert.deepEqual(await found({ lastName: text }), expected(text), text);
    const sure = [...people].find(([, name]) => name === '100% Sure_Thing')![0];
    assert.deepEqual(await found({ lastName: 'sure', username: 'sam' }), []);
    assert.deepEqual(await found({ lastName: 'SURE_T', email: 'name.9@example.com' }), [sure]);
  });

  it('follows changes of names and people removed', async () => {
    const [quill] = [...people].find(([, name]) => name === 'Quill')!;
    assert.equal(
      (await h.put(`users/${quill}`, { lastName: 'Quillon', firstName: 'Anna', username: 'quillon' }, { token: org.token })).statusCode,
      204,
    );
    people.set(quill, 'Quillon');
    const [aquila] = [...people].find(([, name]) => name === 'Aquila')!;
    assert.equal((await h.delete(`users/${aquila}`, { token: org.token })).statusCode, 204);
    people.delete(aquila);
    for (const text of ['qui', 'illo', 'uila']) assert.deepEqual(await found({ lastName: text }), expected(text), text);
    assert.deepEqual(await found({ firstName: 'ANN', username: 'llon' }), [quill]);
    assert.equal((await h.put(`users/${quill}`, { username: null }, { token: org.token })).statusCode, 204);
    assert.deepEqual(await found({ username: 'llon' }), []);
  });

  it('reads the same through the index when the planner would not choose it', async (t) => {
    if (h.engine !== 'postgres') return t.skip('SQLite reads a name through its index whenever few people match it');
    await h.database.db.transaction().execute(async (trx) => {
      // Neither sequential scans nor walks of an index in order: a filter over every organization takes its trigram index.
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_indexscan = off`.execute(trx);
      const matching = (text: string) => trx.selectFrom('users').select('id').where(containsText('last_name', text));
      const plan = await matching('qui').explain();
      assert.match(plan.map((row) => Object.values(row).join()).join('\n'), /users_last_name_trigrams/);
      const everyone = new Map([...people, ...elsewhere]);
      for (const text of QUERIES) {
        const rows = await matching(text).execute();
        assert.deepEqual(rows.map(({ id }) => id).sort(), expected(text, everyone), text);
      }
    });
  });
});
