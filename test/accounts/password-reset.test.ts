import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { runCli } from '../helpers/cli.js';
import { textOf } from '../helpers/console-sign-in.js';
import { eventually } from '../helpers/eventually.js';
import { startMailbox } from '../helpers/mailbox.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { browserOf, createPerson, formActionOf } from '../helpers/pages.js';

const PASSWORD = 'forgotten horse 1';
const NEW_PASSWORD = 'remembered horse 2';

/** A real SMTP server, keeping what it receives. */
const mailbox = await startMailbox();
after(() => mailbox.close());
const inbox = mailbox.mails;

/** The link of the newest mail to `to`, once it arrived. */
async function linkMailedTo(to: string, count = 1): Promise<string> {
  const mails = await eventually(() => inbox.filter((mail) => mail.to.includes(to)).length >= count && inbox.filter((mail) => mail.to.includes(to)), {
    what: `mail number ${count} to ${to}`,
    timeoutMs: 10_000,
  });
  return /\/o\/[0-9a-f]{32}\/reset-password\/[\w-]+/.exec(mails.at(-1)!.text)![0];
}

/** The sign-in's time, which the expiry test moves. */
let now = Date.now();
const people = loadConfig({ SMTP_URL: mailbox.url, MAIL_FROM: 'training@example.com' }).people;

let made = 0;
async function personWithEmail(h: Harness): Promise<{ id: string; email: string }> {
  made += 1;
  const email = `forgetful.${made}.${h.engine}@example.com`;
  return { id: await createPerson(h, { email, password: PASSWORD }), email };
}

async function askForLink(h: Harness, email: string) {
  const browser = browserOf(h);
  const form = await browser.get(`/o/${h.org.id}/forgot-password`);
  assert.equal(form.status, 200);
  return browser.post(formActionOf(form.body)!, { email });
}

forEachEngine(
  'Forgotten passwords',
  (h) => {
    it('mails a link through SMTP_URL that sets a new password once', async () => {
      const { email } = await personWithEmail(h);
      const asked = await askForLink(h, email);
      assert.equal(asked.status, 200);
      const link = await linkMailedTo(email);
      const mail = inbox.find((received) => received.to.includes(email))!;
      assert.equal(mail.from, 'training@example.com');
      assert.equal(mail.subject, 'Choose a new password for Test organization');

      const browser = browserOf(h);
      const page = await browser.get(link);
      assert.equal(page.status, 200);
      // The page of the link sends no Referer with what it loads or links to.
      assert.match(page.body, /<meta name="referrer" content="no-referrer" \/>/);
      const differ = await browser.post(link, { password: NEW_PASSWORD, confirm: 'other' });
      assert.equal(differ.status, 400);
      const set = await browser.post(link, { password: NEW_PASSWORD, confirm: NEW_PASSWORD });
      assert.equal(set.status, 303);
      assert.equal(set.location, `/o/${h.org.id}/sign-in?done=password`);
      // Used up.
      assert.equal((await browser.get(link)).status, 410);
      assert.equal((await browser.post(link, { password: 'third horse 3', confirm: 'third horse 3' })).status, 410);
      assert.equal((await browserOf(h).signIn(h.org.id, email, PASSWORD)).status, 401);
      assert.equal((await browserOf(h).signIn(h.org.id, email, NEW_PASSWORD)).status, 303);
    });

    it('answers an unknown or deactivated address as a known one, and mails nothing for it', async () => {
      const { email } = await personWithEmail(h);
      const deactivated = await personWithEmail(h);
      assert.equal((await h.put(`users/${deactivated.id}`, { active: false })).statusCode, 204);
      const before = inbox.length;
      const answers = [];
      for (const address of ['nobody.at.all@example.com', deactivated.email, email]) {
        const answer = await askForLink(h, address);
        answers.push(textOf(answer));
        assert.equal(answer.status, 200);
      }
      assert.equal(new Set(answers).size, 1, 'the answers differ');
      await linkMailedTo(email);
      assert.deepEqual(
        inbox.slice(before).map((mail) => mail.to),
        [[email]],
      );
    });

    it('refuses a link after its 30 minutes, and a link replaced by a newer one', async () => {
      const { email } = await personWithEmail(h);
      await askForLink(h, email);
      const first = await linkMailedTo(email, 1);
      await askForLink(h, email);
      const second = await linkMailedTo(email, 2);
      assert.notEqual(first, second);
      assert.equal((await browserOf(h).get(first)).status, 410, 'replaced by the newer link');
      assert.equal((await browserOf(h).get(second)).status, 200);
      now += 30 * 60_000 + 1000;
      const browser = browserOf(h);
      assert.equal((await browser.get(second)).status, 410);
      await browser.get(`/o/${h.org.id}/sign-in`);
      assert.equal((await browser.post(second, { password: NEW_PASSWORD, confirm: NEW_PASSWORD })).status, 410);
      assert.equal((await browserOf(h).signIn(h.org.id, email, PASSWORD)).status, 303, 'the password is unchanged');
      now = Date.now();
    });

    it('makes a one-time link from the command line: training-api users reset-link --org --email', async () => {
      const { email } = await personWithEmail(h);
      const made = await runCli(h.database.url, 'users', 'reset-link', '--org', h.org.id, '--email', email.toUpperCase());
      assert.equal(made.code, 0, made.err);
      const link = new URL(made.out.trim());
      assert.match(link.pathname, new RegExp(`^/o/${h.org.id}/reset-password/tpr_`));
      const browser = browserOf(h);
      assert.equal((await browser.get(link.pathname)).status, 200);
      assert.equal((await browser.post(link.pathname, { password: NEW_PASSWORD, confirm: NEW_PASSWORD })).status, 303);
      assert.equal((await browser.get(link.pathname)).status, 410);
      assert.equal((await browserOf(h).signIn(h.org.id, email, NEW_PASSWORD)).status, 303);

      const json = await runCli(h.database.url, 'users', 'reset-link', '--org', h.org.id, '--email', email, '--json');
      assert.equal(json.code, 0, json.err);
      assert.deepEqual(Object.keys(JSON.parse(json.out)).sort(), ['expiresInMinutes', 'link', 'userId']);

      const unknown = await runCli(h.database.url, 'users', 'reset-link', '--org', h.org.id, '--email', 'nobody.at.all@example.com');
      assert.equal(unknown.code, 2);
      assert.match(unknown.err, /No user of the organization has the email nobody\.at\.all@example\.com/);
    });
  },
  { people, signInClock: () => now },
);
