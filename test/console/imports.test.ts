import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { uploadsRepository } from '../../src/console/imports/uploads.repository.js';
import { eventsAfter, latestEventId } from '../helpers/events.js';
import { eventually } from '../helpers/eventually.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { browserOf, createPerson, type PageBrowser, type PageReply } from '../helpers/pages.js';
import { routeTable } from '../helpers/route-table.js';

const PASSWORD = 'console horse 1';

/** Sends a file as the upload form does (multipart/form-data), with the browser's cookies and form token. */
async function upload(h: Harness, browser: PageBrowser, orgId: string, name: string, content: string | Buffer, withToken = true): Promise<PageReply> {
  const form = new FormData();
  if (withToken && browser.csrf) form.append('_csrf', browser.csrf);
  form.append('file', new Blob([content]), name);
  const encoded = new Request('https://localhost/', { method: 'POST', body: form });
  const cookie = [...browser.cookies].map(([key, value]) => `${key}=${value}`).join('; ');
  const response = await h.app.inject({
    method: 'POST',
    url: `/o/${orgId}/console/imports/uploads`,
    headers: { cookie, 'content-type': encoded.headers.get('content-type')!, accept: 'text/html' },
    payload: Buffer.from(await encoded.arrayBuffer()),
  });
  const location = typeof response.headers.location === 'string' ? response.headers.location : undefined;
  return { status: response.statusCode, headers: response.headers as PageReply['headers'], body: response.body, ...(location ? { location } : {}) };
}

/** The form fields of the mapping page: each heading with the target selected, and the options' hidden fields. */
function mappingForm(body: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [, name, value] of body.matchAll(/<input type="hidden" name="(heading\.\d+|sheet|headerRow)" value="([^"]*)"/g))
    form[name!] = value!.replaceAll('&amp;', '&');
  for (const [, name, options] of body.matchAll(/<select name="(target\.\d+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    form[name!] = /<option value="([^"]*)"\s+selected>/.exec(options!)?.[1] ?? '';
  }
  return form;
}

/** Each heading's selected target on the mapping page. */
function selectedTargets(body: string): Record<string, string> {
  const form = mappingForm(body);
  return Object.fromEntries(Object.keys(form).flatMap((key) => (key.startsWith('heading.') ? [[form[key]!, form[`target.${key.slice(8)}`]!]] : [])));
}

/**
 * Every route of the section, with what it writes and where its events and its refusal of another
 * organization's ids are checked: a new route fails the first test below until it is listed.
 */
const SECTION_ROUTES: Record<string, string> = {
  'GET /o/:orgId/console/imports': "reads: the organization's jobs only (another's are not listed: checked below)",
  'POST /o/:orgId/console/imports/uploads': 'keeps the file for the next steps (import_uploads), no resource of the API: no event',
  'GET /o/:orgId/console/imports/uploads/:uploadId': "reads the upload; another organization's is a 404",
  'POST /o/:orgId/console/imports/uploads/:uploadId/preview':
    "a dry run (a job of POST /imports that writes nothing): no event; another organization's upload is a 404",
  'POST /o/:orgId/console/imports/uploads/:uploadId/run':
    "the import, a job of POST /imports: user.created and userfieldvalues.updated as the API's own (checked below); another organization's upload is a 404",
  'GET /o/:orgId/console/imports/jobs/:jobId': "reads the job; another organization's is a 404",
  'GET /o/:orgId/console/imports/jobs/:jobId/status': "reads the job's progress; another organization's is a 404",
  'GET /o/:orgId/console/imports/export': "reads the organization's people, as GET /users does",
};

forEachEngine('Console: imports and exports', (h) => {
  let admin: PageBrowser;
  let department: string;
  const base = () => `/o/${h.org.id}/console/imports`;
  const signedIn = async (email: string, accountType?: string) => {
    await createPerson(h, { email, password: PASSWORD, ...(accountType ? { accountType } : {}) });
    const browser = browserOf(h);
    const answer = await browser.signIn(h.org.id, email, PASSWORD);
    assert.equal(answer.status, 303, answer.body);
    return browser;
  };
  const userByEmail = async (email: string) => (await h.get('users', { query: { email } })).json().results[0];
  /** Follows the job's page until it no longer runs. */
  const finished = (browser: PageBrowser, url: string) =>
    eventually(
      async () => {
        const page = await browser.get(url);
        return page.status === 200 && !page.body.includes('data-poll=') && page;
      },
      { what: `${url} to finish` },
    );

  before(async () => {
    department = await h.create('userfields', { type: 'text', name: 'Department', categoryName: 'HR' });
    admin = await signedIn('admin@example.com', 'organizationAdministrator');
  });

  it('knows every route of the section: what each writes, and where its events and tenancy are checked', () => {
    const routes = routeTable(h.app).other.filter((route) => /^\w+ \/o\/:orgId\/console\/imports(\/|$)/.test(route));
    assert.deepEqual(routes.sort(), Object.keys(SECTION_ROUTES).sort());
  });

  it('uploads a file, maps its headings, previews who would be added, then imports it, with its events and its place in the history', async () => {
    const page = await admin.get(base());
    assert.equal(page.status, 200);
    assert.match(page.body, /enctype="multipart\/form-data"/);
    assert.match(page.body, /No import yet/);

    const file = 'Work E-mail,Given,Surname,Dept,Badge\nada@example.com,Ada,Lovelace,Engines,7\nalan@example.com,Alan,Turing,Codes,9\n';
    const uploaded = await upload(h, admin, h.org.id, 'staff.csv', file);
    assert.equal(uploaded.status, 303, uploaded.body);
    assert.match(uploaded.location!, new RegExp(`^${base()}/uploads/[0-9a-f]{32}$`));
    const mapping = await admin.get(uploaded.location!);
    assert.equal(mapping.status, 200, mapping.body);
    assert.match(mapping.body, /staff\.csv/);
    // Nothing names Given, Surname, Dept or Badge: they start left out; "Work E-mail" is left out too (not "email").
    assert.deepEqual(selectedTargets(mapping.body), { 'Work E-mail': '', Given: '', Surname: '', Dept: '', Badge: '' });
    assert.match(mapping.body, /<td>Lovelace<\/td>/, 'the first value of each column');

    const form = mappingForm(mapping.body);
    const target = (heading: string, value: string) => {
      const key = Object.keys(form).find((name) => form[name] === heading)!;
      form[`target.${key.slice(8)}`] = value;
    };
    target('Work E-mail', 'email');
    target('Given', 'firstName');
    target('Surname', 'lastName');
    target('Dept', department);
    const cursor = await latestEventId(h);
    const previewed = await admin.post(`${uploaded.location}/preview`, form);
    assert.equal(previewed.status, 303, previewed.body);
    const jobUrl = previewed.location!;
    assert.match(jobUrl, new RegExp(`^${base()}/jobs/[0-9a-f]{32}$`));
    const preview = await finished(admin, jobUrl);
    assert.match(preview.body, /Nothing was written: this is what the import would do/);
    assert.match(preview.body, /Added \(2\)/);
    assert.match(preview.body, /<td>2<\/td>\s*<td>ada@example\.com<\/td>/);
    assert.match(preview.body, /<td>3<\/td>\s*<td>alan@example\.com<\/td>/);
    assert.equal(await userByEmail('ada@example.com'), undefined, 'a preview writes nothing');
    assert.deepEqual(await eventsAfter(h, cursor), []);
    const jobId = jobUrl.split('/').pop()!;
    const asApi = (await h.get(`imports/${jobId}`)).json();
    assert.deepEqual(asApi.options, {
      map: `Work E-mail=email,Given=firstName,Surname=lastName,Dept=${department}`,
      ignoreColumns: 'Badge',
      dryRun: true,
    });

    const status = await admin.get(`${jobUrl}/status`, { accept: 'application/json' });
    assert.equal(status.status, 200);
    assert.deepEqual(JSON.parse(status.body), { text: 'The preview succeeded.', percent: 100, done: true });

    const run = await admin.post(`${uploaded.location}/run`, {});
    assert.equal(run.status, 303, run.body);
    const imported = await finished(admin, run.location!);
    assert.match(imported.body, /The import is done/);
    const ada = await userByEmail('ada@example.com');
    assert.equal(ada.lastName, 'Lovelace');
    assert.equal((await h.get(`users/${ada.id}/userfieldvalues`)).json()[department], 'Engines');
    const events = await eventsAfter(h, cursor);
    assert.deepEqual(
      events.filter((event) => event.type === 'user.created').map((event) => event.data.email),
      ['ada@example.com', 'alan@example.com'],
    );
    assert.equal(events.filter((event) => event.type === 'userfieldvalues.updated').length, 2);

    // The upload is gone once imported; the history lists the import, then its preview.
    assert.equal((await admin.get(uploaded.location!)).status, 404);
    const history = (await admin.get(base())).body;
    const opened = [...history.matchAll(/href="([^"]+\/jobs\/[0-9a-f]{32})"/g)].map((match) => match[1]);
    assert.deepEqual(opened.slice(0, 2), [run.location, jobUrl]);
    assert.match(history, /<td>Import<\/td>\s*<td><span class="badge ok">succeeded<\/span><\/td>\s*<td>2<\/td>\s*<td>2<\/td>/);
  });

  it('offers the mapping of the last import again for the next file', async () => {
    const uploaded = await upload(
      h,
      admin,
      h.org.id,
      'next.csv',
      'work e-mail,Given,SURNAME,Dept,Badge,Office\ngrace@example.com,Grace,Hopper,Navy,3,Arlington\n',
    );
    assert.equal(uploaded.status, 303, uploaded.body);
    const mapping = await admin.get(uploaded.location!);
    assert.deepEqual(selectedTargets(mapping.body), {
      'work e-mail': 'email',
      Given: 'firstName',
      SURNAME: 'lastName',
      Dept: department,
      Badge: '',
      Office: '',
    });
  });

  it('shows a refused file with the row of each problem, writes nothing, and offers no import', async () => {
    const cursor = await latestEventId(h);
    const uploaded = await upload(h, admin, h.org.id, 'bad.csv', 'email,firstName\nfine@example.com,Fine\nnot-an-email,Bad\n');
    const previewed = await admin.post(`${uploaded.location}/preview`, mappingForm((await admin.get(uploaded.location!)).body));
    assert.equal(previewed.status, 303, previewed.body);
    const preview = await finished(admin, previewed.location!);
    assert.match(preview.body, /badge error">refused/);
    assert.match(preview.body, /The file is refused: nothing was written/);
    assert.match(preview.body, /<td>3<\/td>\s*<td>email<\/td>\s*<td>email<\/td>\s*<td>Invalid email address<\/td>/);
    assert.doesNotMatch(preview.body, /\/run"/, 'no import to run');
    const run = await admin.post(`${uploaded.location}/run`, {});
    assert.equal(run.status, 409);
    assert.match(run.body, /Preview the import first/);
    assert.equal(await userByEmail('fine@example.com'), undefined);
    assert.deepEqual(await eventsAfter(h, cursor), []);
  });

  it('refuses an empty file, a file it does not read, options it cannot read (keeping the form), and a form without its token', async () => {
    const empty = await upload(h, admin, h.org.id, 'empty.csv', '');
    assert.equal(empty.status, 400);
    assert.match(empty.body, /Choose a file to upload/);
    const pdf = await upload(h, admin, h.org.id, 'people.pdf', '%PDF-1.7');
    assert.equal(pdf.status, 400);
    assert.match(pdf.body, /people\.pdf is not a file an import reads/);
    const forged = await upload(h, admin, h.org.id, 'people.csv', 'email\nx@example.com\n', false);
    assert.equal(forged.status, 403);

    const uploaded = await upload(h, admin, h.org.id, 'options.csv', 'email\nopt@example.com\n');
    const form = { ...mappingForm((await admin.get(uploaded.location!)).body), maxChanges: 'many', locale: 'fr-CH' };
    const refused = await admin.post(`${uploaded.location}/preview`, form);
    assert.equal(refused.status, 400);
    assert.match(refused.body, /maxChanges must be a number of users/);
    assert.match(refused.body, /name="maxChanges"\s+value="many"/);
    assert.match(refused.body, /name="locale"\s+value="fr-CH"/);
    assert.equal((await h.get('imports/x')).statusCode, 404);
  });

  it('exports the people as CSV and as a workbook, as downloads', async () => {
    const csv = await admin.get(`${base()}/export?format=csv`);
    assert.equal(csv.status, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    assert.match(String(csv.headers['content-disposition']), /^attachment; filename="people-\d{4}-\d{2}-\d{2}\.csv"$/);
    assert.equal(csv.headers['cache-control'], 'no-store');
    const [heading, ...rows] = csv.body.trim().split('\n');
    // The organization's own userfields (an address, a phone) follow Department.
    assert.match(heading!, /^email,firstName,lastName,username,tags,locale,active,accountType,Department,/);
    assert.ok(
      rows.some((row) => row.startsWith('admin@example.com,,,,,,true,organizationAdministrator,,')),
      rows.join('\n'),
    );
    assert.ok(
      rows.some((row) => row.startsWith('ada@example.com,Ada,Lovelace,,,,true,,Engines,')),
      rows.join('\n'),
    );
    const xlsx = await h.app.inject({
      method: 'GET',
      url: `${base()}/export?format=xlsx`,
      headers: { cookie: [...admin.cookies].map(([key, value]) => `${key}=${value}`).join('; ') },
    });
    assert.equal(xlsx.statusCode, 200);
    assert.equal(xlsx.headers['content-type'], 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    assert.equal(xlsx.rawPayload.subarray(0, 2).toString(), 'PK');
    assert.equal((await admin.get(`${base()}/export?format=pdf`)).status, 400);
  });

  it('is for organization administrators: a course administrator and a learner get 403, even for an upload, and nobody signed in is sent to sign in', async () => {
    for (const [email, kind] of [
      ['courses@example.com', 'courseAdministrator'],
      ['learner@example.com', undefined],
    ] as const) {
      const browser = await signedIn(email, kind);
      for (const path of [base(), `${base()}/export?format=csv`]) assert.equal((await browser.get(path)).status, 403, `${email} ${path}`);
      const refused = await upload(h, browser, h.org.id, 'people.csv', 'email\nsneaky@example.com\n');
      assert.equal(refused.status, 403, email);
    }
    const nobody = browserOf(h);
    const answer = await nobody.get(base());
    assert.equal(answer.status, 303);
    assert.match(answer.location!, new RegExp(`^/o/${h.org.id}/sign-in\\?next=`));
    assert.equal((await upload(h, nobody, h.org.id, 'people.csv', 'email\nanon@example.com\n')).status, 403);
    assert.equal(await userByEmail('sneaky@example.com'), undefined);
  });

  it("answers 404 for another organization's jobs and uploads, and shows nothing of them", async () => {
    const other = await h.createOrganization('Other company');
    const job = await h.request('POST', 'imports', 'email\nother@example.com\n', { token: other.token, headers: { 'content-type': 'text/csv' } });
    assert.equal(job.statusCode, 202);
    const jobId = job.json().id;
    const uploadId = await uploadsRepository(h.database.db).create(other.id, jobId, {
      name: 'theirs.csv',
      format: 'csv',
      bytes: Buffer.from('email\nx@example.com\n'),
    });
    for (const path of [`jobs/${jobId}`, `jobs/${jobId}/status`, `uploads/${uploadId}`]) {
      const answer = await admin.get(`${base()}/${path}`);
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(answer.body, /theirs\.csv|other@example\.com/);
    }
    for (const action of ['preview', 'run']) assert.equal((await admin.post(`${base()}/uploads/${uploadId}/${action}`, {})).status, 404, action);
    assert.ok(await uploadsRepository(h.database.db).find(other.id, uploadId), 'their upload is still theirs');
    const history = (await admin.get(base())).body;
    assert.doesNotMatch(history, new RegExp(jobId));
  });
});
