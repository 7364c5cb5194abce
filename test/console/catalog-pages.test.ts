import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CHART_SCRIPT_PATH, CONSOLE_SCRIPT_PATH } from '../../src/console/assets.js';
import { forEachEngine } from '../helpers/harness.js';
import { signedInAs } from '../helpers/console-sign-in.js';
import type { PageBrowser } from '../helpers/pages.js';

forEachEngine("Console: the userfields, offerings and agreements pages follow the pages' rules", (h) => {
  let admin: PageBrowser;
  let paths: string[];

  before(async () => {
    ({ browser: admin } = await signedInAs(h, 'organizationAdministrator'));
    const category = await h.create('userfieldcategories', { name: 'Profile', type: 'private' });
    const field = await h.create('userfields', { type: 'checkboxes', name: 'Languages', categoryId: category, options: [{ name: 'English' }] });
    const offering = await h.create('offerings', { title: 'French' });
    const user = await h.create('users', { email: 'pages@example.com' });
    await h.create('registrations', { userId: user, offeringId: offering });
    const offeringCategory = await h.create('offeringcategories', { name: 'Languages', color: '#0b5cad' });
    const base = `/o/${h.org.id}/console`;
    paths = [
      `${base}/userfields`,
      `${base}/userfields/new`,
      ...['text', 'date', 'dropdown', 'checkbox', 'message'].map((type) => `${base}/userfields/new?type=${type}`),
      `${base}/userfields/${field}`,
      `${base}/offerings`,
      `${base}/offerings/new`,
      `${base}/offerings/${offering}`,
      `${base}/offerings/categories`,
      `${base}/offerings/categories/${offeringCategory}`,
      `${base}/agreements`,
    ];
  });

  it('serves the console scripts as brotli, gzip or as they are, as the browser accepts, the same bytes each time', async () => {
    for (const path of [CONSOLE_SCRIPT_PATH, CHART_SCRIPT_PATH]) {
      const get = (acceptEncoding: string) => h.get(path, { token: null, headers: { 'accept-encoding': acceptEncoding } });
      const plain = await get('identity');
      assert.equal(plain.statusCode, 200, path);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers['vary'], 'accept-encoding');
      assert.match(String(plain.headers['cache-control']), /immutable/);
      const text = plain.rawPayload;
      assert.ok(text.length > 1000, path);
      for (const [accepted, encoding, decode] of [
        ['gzip, deflate, br', 'br', brotliDecompressSync],
        ['gzip', 'gzip', gunzipSync],
      ] as const) {
        const first = await get(accepted);
        const again = await get(accepted);
        assert.equal(first.headers['content-encoding'], encoding, `${path} for ${accepted}`);
        assert.ok(first.rawPayload.length < text.length / 2, `${path} is compressed as ${encoding}`);
        assert.deepEqual(decode(first.rawPayload), text);
        assert.deepEqual(again.rawPayload, first.rawPayload);
      }
    }
  });

  it('loads the console script alone, has no inline style or script, and a form token in every form', async () => {
    const problems: string[] = [];
    for (const path of paths) {
      const page = await admin.get(path);
      const where = (problem: string) => problems.push(`${path}: ${problem}`);
      if (page.status !== 200) where(`${page.status}`);
      const policy = String(page.headers['content-security-policy']);
      if (!/script-src 'self'/.test(policy) || policy.includes('unsafe-inline')) where(`CSP ${policy}`);
      const scripts = [...page.body.matchAll(/<script\b[^>]*>/g)].map((tag) => tag[0]);
      if (scripts.length !== 1 || !scripts[0]!.includes(`src="${CONSOLE_SCRIPT_PATH}"`)) where(`scripts ${scripts.join(' ')}`);
      if (/\sstyle=|\son[a-z]+=/i.test(page.body)) where('an inline style or event handler');
      const posts = page.body.split(/<form\b/).slice(1);
      const unguarded = posts.filter((form) => /^[^>]*method="post"/.test(form) && !form.slice(0, form.indexOf('</form>')).includes('name="_csrf"'));
      if (unguarded.length > 0) where(`${unguarded.length} forms without a token`);
      if (/\b_csrf=|token=/.test(page.body.replace(/name="_csrf"/g, ''))) where('a secret in an address');
    }
    assert.deepEqual(problems, []);
  });

  it('refuses a form without its token: 403, nothing written', async () => {
    const before = (await h.get('userfieldcategories')).json().results.length;
    const refused = await admin.post(`/o/${h.org.id}/console/userfields/categories`, { _csrf: undefined, name: 'Forged', type: 'public' });
    assert.equal(refused.status, 403);
    assert.equal((await h.get('userfieldcategories')).json().results.length, before);
  });
});
