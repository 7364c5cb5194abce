import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { CONSOLE_SCRIPT_PATH } from '../../src/console/assets.js';
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
