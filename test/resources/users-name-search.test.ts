import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { containsText, lowerCase } from '../../src/db/filters.js';
import { nameConditions, rarestFragments, sampledNameConditions, type NameSample } from '../../src/resources/users/name-search.js';
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

/** Last names of a family each, as the bench's: every name holds `fam`, `ami`, `mil` and `ily`. */
const FAMILIES = Array.from({ length: 240 }, (_, index) => `Family${index}`);
/** Names where the rare part is at an edge, or the common part twice, or broken by characters pg_trgm drops. */
const FAMILY_EDGES = ['Zyxfamily', 'FamilyQzv', 'Familyfamily', 'Ffamily7', 'Fami ly7', 'Family-Qz9', 'Quxfamily123'];
/** Their searches: of 3 letters (a single fragment), 4, many; common fragments only; a rare one at an edge; none. */
const FAMILY_QUERIES = [
  ...['fam', 'FAM', 'ily', 'y12', '239', 'qzv', 'zyx'],
  ...['amil', 'fami', 'y123', '1239', 'zyxf', 'yqzv', 'ly-q', 'i ly'],
  ...['family', 'family1', 'family12', 'family123', 'FAMILY123', 'family239', 'family00', 'zyxfamily', 'familyqzv', 'familyfamily'],
  ...['ffamily7', 'fami ly7', 'family-qz9', 'y-qz9', 'quxfamily123', 'familyfamilyfamily', 'family1234567890'],
];

/** A sample of names (as PostgreSQL's ANALYZE keeps them for the trigram index) of a million people. */
const sample = (values: string[], people = 1_000_000): NameSample => ({ values, shares: values.map(() => 1 / values.length), people });

describe('users: the fragments of a name filter asked of the PostgreSQL index', () => {
  const families = sample(['family0', 'family1044', 'family2050', 'family3100', 'family4200']);

  it('asks for the rarest two, leaving out those of every name', () => {
    // y12, 123 and 234 are in no sampled name: the rarest is the first of them, then the farthest.
    assert.deepEqual(rarestFragments('family1234', families), ['y12', '234']);
    assert.deepEqual(rarestFragments('FAMILY1234', families), ['y12', '234']);
    assert.deepEqual(rarestFragments('ly9999', families), ['ly9', '999']);
  });

  it('asks for a rare one alone rather than with one of every name', () => {
    assert.deepEqual(rarestFragments('zfamily', families), ['zfa']);
    assert.deepEqual(rarestFragments('familyz', families), ['lyz']);
  });

  it('asks for two common ones when together they are rare', () => {
    const halves = sample(['alpha', 'alpha', 'omega', 'omega', 'alpha omega']);
    assert.deepEqual(rarestFragments('alpha omega', halves), []);
    assert.deepEqual(rarestFragments('alpha omega', sample(['alpha', 'alpha', 'omega', 'omega'])), ['alp', 'ega']);
  });

  it('asks for none when the people they leave are many (walking the list instead), and leaves alone a text with none of letters or digits only', () => {
    assert.deepEqual(rarestFragments('family1', families), []);
    assert.deepEqual(rarestFragments('family', families), []);
    // A fifth of 10,000 people is few enough to read.
    assert.deepEqual(rarestFragments('family1', sample(families.values, 10_000)), ['ly1']);
    assert.equal(rarestFragments('a-b c!d', families), undefined);
    assert.deepEqual(rarestFragments('ly-qz9', families), ['qz9']);
  });

  it('counts the shares of the most common names and of the histogram as ANALYZE gave them', () => {
    const weighted: NameSample = { values: ['family1', 'family2', 'quill'], shares: [0.9, 0.0999, 0.0001], people: 1_000_000 };
    assert.deepEqual(rarestFragments('quill', weighted), ['qui', 'ill']);
    assert.deepEqual(rarestFragments('family2', weighted), []);
  });
});

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

  it('finds the same for names that share common fragments, asking the index for the rare ones', async () => {
    const families = await h.createOrganization('Families');
    const elsewhere = await h.createOrganization('Families elsewhere');
    const named = new Map<string, string>();
    for (const [index, lastName] of [...FAMILIES, ...FAMILY_EDGES].entries()) {
      named.set(await h.create('users', { email: `family.${index}@example.com`, lastName }, { token: families.token }), lastName);
      // The same names in another organization, which no search of the first finds.
      await h.create('users', { email: `family.${index}@example.com`, lastName }, { token: elsewhere.token });
    }
    const familyMembers = (text: string) =>
      [...named]
        .filter(([, name]) => lowerCase(name).includes(lowerCase(text)))
        .map(([id]) => id)
        .sort();
    const listed = async (query: Record<string, string>) => {
      const ids: string[] = [];
      for (let offset = 0; ; offset += 100) {
        const response = await h.get('users', { token: families.token, query: { limit: '100', offset: String(offset), ...query } });
        assert.equal(response.statusCode, 200, response.body);
        const page = (response.json().results as { id: string }[]).map(({ id }) => id);
        ids.push(...page);
        if (page.length < 100) return ids.sort();
      }
    };
    // PostgreSQL chooses the fragments from the sample of names ANALYZE keeps; without one it asks for all.
    if (h.engine === 'postgres') await sql`analyze users`.execute(h.database.db);
    for (const text of FAMILY_QUERIES) assert.deepEqual(await listed({ lastName: text }), familyMembers(text), text);
    const twelve = [...named].find(([, name]) => name === 'Family12')![0];
    assert.deepEqual(await listed({ lastName: 'family12', email: 'family.12@example.com' }), [twelve]);
    // The first organization's people, found again through the sample.
    for (const text of QUERIES) assert.deepEqual(await found({ lastName: text }), expected(text), text);
    if (h.engine !== 'postgres') return;

    const conditions = await nameConditions(h.database.db, [{ column: 'last_name', text: 'Family123', atStart: false }]);
    const query = conditions.reduce((users, condition) => users.where(condition), h.database.db.selectFrom('users').select('id')).compile();
    const patterns = query.parameters.filter((parameter) => typeof parameter === 'string' && parameter.startsWith('%'));
    assert.equal(patterns.at(-1), '%family123%');
    const fragments = patterns.slice(0, -1);
    assert.ok(fragments.length >= 1 && fragments.length <= 2, patterns.join());
    for (const common of ['%fam%', '%ami%', '%mil%', '%ily%']) assert.ok(!fragments.includes(common), patterns.join());
    await h.database.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_indexscan = off`.execute(trx);
      const plan = await trx.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
      const text = plan.rows.map((row) => Object.values(row).join()).join('\n');
      const asked = /Index Cond: (.*)/.exec(text)?.[1] ?? '';
      assert.match(text, /users_last_name_trigrams/);
      assert.doesNotMatch(asked, /family123/, text);
      for (const fragment of fragments) assert.ok(asked.includes(`'${fragment as string}'`), text);
    });

    // A filter whose fragments a million people hold walks the list instead: never the trigram index.
    const common = sampledNameConditions({ column: 'last_name', text: 'family1', atStart: false }, sample(['family0', 'family1', 'family12']));
    const walked = common.reduce(
      (users, condition) => users.where(condition),
      h.database.db.selectFrom('users').select('id').where('org_id', '=', families.id),
    );
    assert.deepEqual((await walked.execute()).map(({ id }) => id).sort(), familyMembers('family1'));
    await h.database.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const compiled = walked.compile();
      const plan = await trx.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
      assert.doesNotMatch(plan.rows.map((row) => Object.values(row).join()).join('\n'), /trigrams/);
    });
  });
});
