import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { before, it } from 'node:test';
import { eventsAfter } from '../helpers/events.js';
import { eventually } from '../helpers/eventually.js';
import { forEachEngine } from '../helpers/harness.js';
import { UPLOAD_FOLDER_PREFIX } from '../../src/lib/spooled-upload.js';

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/import');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

// Uploads are written under the system's temporary directory: this file's own, to see what they leave there.
process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'imports-test-'));
const uploadsLeft = () => readdirSync(tmpdir()).filter((name) => name.startsWith(UPLOAD_FOLDER_PREFIX));

/** POST /imports: the command line's import over HTTP, run in the background, its job kept for GET /imports/{id}. */
forEachEngine('POST /imports', (h) => {
  let department: string;
  before(async () => {
    department = await h.create('userfields', {
      type: 'dropdown',
      name: 'Department',
      categoryName: 'HR',
      options: [{ name: 'Sales' }, { name: 'Support' }],
    });
  });

  const send = (body: string | Buffer, type = 'text/csv', query: Record<string, string> = {}, token?: string) =>
    h.request('POST', 'imports', body, { headers: { 'content-type': type }, query, ...(token ? { token } : {}) });
  const finished = (id: string, token?: string) =>
    eventually(
      async () => {
        const job = (await h.get(`imports/${id}`, token ? { token } : {})).json();
        return job.state !== 'running' && job;
      },
      { what: `import job ${id} to finish` },
    );
  const userByEmail = async (email: string) => (await h.get('users', { query: { email } })).json().results[0];

  it('answers 202 with the job, which GET /imports/{id} follows until it succeeded; a re-run is all unchanged, without events', async () => {
    const response = await send(fixture('windows-1252.csv'));
    assert.equal(response.statusCode, 202, response.body);
    const job = response.json();
    assert.match(String(response.headers.location), new RegExp(`/api/v5/imports/${job.id}$`));
    assert.deepEqual(job.options, {});
    const done = await finished(job.id);
    assert.equal(done.state, 'succeeded', JSON.stringify(done));
    assert.deepEqual(done.summary, { rows: 2, created: 2, updated: 0, unchanged: 0, deactivated: 0, userfieldValues: 2, dryRun: false });
    assert.equal('problems' in done, false, 'absent, not an empty list');
    assert.ok(done.finishedDate >= done.createdDate);
    const zoe = await userByEmail('zoe@example.com');
    assert.equal(zoe.lastName, 'Müller');
    assert.equal((await h.get(`users/${zoe.id}/userfieldvalues`)).json()[department], 'Sales');

    const cursor = (await eventsAfter(h)).at(-1)?.id;
    const again = await finished((await send(fixture('windows-1252.csv'))).json().id);
    assert.deepEqual(again.summary, { rows: 2, created: 0, updated: 0, unchanged: 2, deactivated: 0, userfieldValues: 0, dryRun: false });
    assert.deepEqual(await eventsAfter(h, cursor), []);
  });

  it("keeps the rows' problems of a refused file, with spreadsheet row numbers, and writes nothing", async () => {
    const job = (await send(fixture('multi-line.csv'))).json();
    const done = await finished(job.id);
    assert.equal(done.state, 'refused');
    assert.equal('summary' in done, false);
    assert.deepEqual(
      done.problems.map((problem: any) => [problem.row, problem.field, problem.message]),
      [
        [4, 'email', 'Invalid email address'],
        [6, 'email', 'is also on row 2'],
      ],
    );
  });

  it('takes the options of the command line: a dry run of the nightly sync lists who would be deactivated', async () => {
    const query = { deactivateMissing: 'true', dryRun: 'true', maxChanges: '100%', map: 'E-Mail Address=email', ignoreColumns: 'Badge' };
    const job = (await send('E-Mail Address,Badge\nzoe@example.com,7\n', 'text/csv; charset=utf-8', query)).json();
    assert.deepEqual(job.options, { deactivateMissing: true, dryRun: true, maxChanges: '100%', map: 'E-Mail Address=email', ignoreColumns: 'Badge' });
    const done = await finished(job.id);
    assert.equal(done.state, 'succeeded', JSON.stringify(done));
    assert.equal(done.summary.deactivated, 1);
    assert.deepEqual(done.summary.changes, [{ email: 'francois@example.com', change: 'deactivated' }]);
    assert.equal((await userByEmail('francois@example.com')).active, true);
  });

  it('lists in a dry run each row that would create or update a user, with its row, and writes nothing', async () => {
    const file = 'email,firstName\nzoe@example.com,Zoé\nnew.person@example.com,New\n';
    const done = await finished((await send(file, 'text/csv', { dryRun: 'true' })).json().id);
    assert.equal(done.state, 'succeeded', JSON.stringify(done));
    assert.deepEqual(done.summary.changes, [
      { row: 2, email: 'zoe@example.com', change: 'updated' },
      { row: 3, email: 'new.person@example.com', change: 'created' },
    ]);
    assert.equal(await userByEmail('new.person@example.com'), undefined);
  });

  it('reads JSON Lines', async () => {
    const done = await finished((await send('{"email":"lines@example.com","firstName":"Lin"}\n', 'application/x-ndjson')).json().id);
    assert.equal(done.state, 'succeeded', JSON.stringify(done));
    assert.equal((await userByEmail('lines@example.com')).firstName, 'Lin');
  });

  it('refuses options it cannot read (400 with fieldErrors), other content types (415) and a file too large (413)', async () => {
    const bad = await send('email\na@example.com\n', 'text/csv', { maxChanges: 'many', encoding: 'ebcdic' });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(Object.keys(bad.json().fieldErrors).sort(), ['encoding', 'maxChanges']);
    const unknown = await send('email\na@example.com\n', 'text/csv', { shoeSize: '44' });
    assert.equal(unknown.statusCode, 400, unknown.body);
    const json = await send(JSON.stringify({ email: 'a@example.com' }), 'application/json');
    assert.equal(json.statusCode, 415);
    assert.match(json.json().errors[0], /text\/csv/);
    const huge = await send(Buffer.alloc(64 * 1024 * 1024 + 1, 'a'));
    assert.equal(huge.statusCode, 413);
    assert.match(huge.json().errors[0], /exceeds the limit of 67108864 bytes/);
  });

  it('keeps the file sent on disk, not in memory, until its job ends, and leaves nothing behind when no job starts', async () => {
    const job = (await send(Buffer.from('email,firstName\nondisk@example.com,Disk\n'))).json();
    assert.equal((await finished(job.id)).summary.created, 1);
    await eventually(() => uploadsLeft().length === 0, { what: 'the finished job to remove its file' });
    assert.equal((await send('email\na@example.com\n', 'text/csv', { maxChanges: 'many' })).statusCode, 400);
    assert.equal((await send('email\na@example.com\n', 'text/csv', { shoeSize: '44' })).statusCode, 400);
    await eventually(() => uploadsLeft().length === 0, { what: 'refused requests to remove their files' });

    const key = { 'idempotency-key': `spooled-${h.engine}` };
    const first = await h.request('POST', 'imports', 'email\nkeyed@example.com\n', { headers: { 'content-type': 'text/csv', ...key } });
    await finished(first.json().id);
    const replay = await h.request('POST', 'imports', 'email\nkeyed@example.com\n', { headers: { 'content-type': 'text/csv', ...key } });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    await eventually(() => uploadsLeft().length === 0, { what: 'the replayed request to remove its file' });

    // Sent without a Content-Length, the body is counted as it arrives and refused past the limit.
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const tooMuch = Readable.from(
      (function* () {
        for (let sent = 0; sent <= 64; sent++) yield chunk;
      })(),
    );
    const refused = await h.app.inject({
      method: 'POST',
      url: '/api/v5/imports',
      headers: { authorization: `Bearer ${h.org.token}`, 'content-type': 'text/csv' },
      payload: tooMuch,
    });
    assert.equal(refused.statusCode, 413, refused.body);
    assert.match(refused.json().errors[0], /exceeds the limit of 67108864 bytes/);
    assert.equal(refused.headers.connection, 'close', 'the rest of the body is not read');
    assert.deepEqual(uploadsLeft(), []);
  });

  it('replays a retry with the same Idempotency-Key without a second import; the same key with other options is refused', async () => {
    const key = { 'idempotency-key': 'nightly-2026-11-26' };
    const file = 'email\nretry@example.com\n';
    const first = await h.request('POST', 'imports', file, { headers: { 'content-type': 'text/csv', ...key } });
    assert.equal(first.statusCode, 202, first.body);
    const again = await h.request('POST', 'imports', file, { headers: { 'content-type': 'text/csv', ...key } });
    assert.equal(again.statusCode, 202);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().id, first.json().id);
    const other = await h.request('POST', 'imports', file, { headers: { 'content-type': 'text/csv', ...key }, query: { dryRun: 'true' } });
    assert.equal(other.statusCode, 400, other.body);
    assert.equal((await finished(first.json().id)).summary.created, 1);
  });

  it("needs a write token to import; another organization's import is not found", async () => {
    const readOnly = await h.token(h.org.id, { scopes: ['read'] });
    const refused = await send('email\nro@example.com\n', 'text/csv', {}, readOnly);
    assert.equal(refused.statusCode, 403);
    const job = (await send('email\nmine@example.com\n')).json();
    assert.equal((await h.get(`imports/${job.id}`, { token: readOnly })).statusCode, 200, 'read is enough to follow it');
    await finished(job.id);
    const other = await h.createOrganization('Other company');
    const notFound = await h.get(`imports/${job.id}`, { token: other.token });
    assert.equal(notFound.statusCode, 404);
    assert.equal((await h.get('imports/no-such-id')).statusCode, 404);
  });

  it('reports a job whose server stopped stamping it as failed, for good, instead of running forever', async () => {
    // A job as a killed server leaves it: running, its last stamp 20 s old.
    const lost = { org_id: h.org.id, id: '0'.repeat(31) + '1', options: '{}', summary: null, problems: null, finished_date: null };
    const stamped = new Date(Date.now() - 20_000).toISOString();
    await h.database.db
      .insertInto('import_jobs')
      .values({ ...lost, state: 'running', created_date: stamped.slice(0, 19) + 'Z', heartbeat_date: stamped })
      .execute();
    const read = (await h.get(`imports/${lost.id}`)).json();
    assert.equal(read.state, 'failed');
    assert.match(read.problems[0].message, /^the server running the import stopped before it finished; .*send the file again/);
    assert.ok(read.finishedDate);
    assert.deepEqual((await h.get(`imports/${lost.id}`)).json(), read, 'the same answer again');
    const row = await h.database.db.selectFrom('import_jobs').select('state').where('id', '=', lost.id).executeTakeFirstOrThrow();
    assert.equal(row.state, 'failed');
    // A job stamped a moment ago is still running.
    const fresh = {
      ...lost,
      id: '0'.repeat(31) + '2',
      state: 'running' as const,
      created_date: stamped.slice(0, 19) + 'Z',
      heartbeat_date: new Date().toISOString(),
    };
    await h.database.db.insertInto('import_jobs').values(fresh).execute();
    assert.equal((await h.get(`imports/${fresh.id}`)).json().state, 'running');
  });
});
