import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, browserSkip, launchBrowser, type AxeViolation } from '../helpers/browser.js';
import { forEachEngine } from '../helpers/harness.js';
import { startMailbox } from '../helpers/mailbox.js';
import { authorization, registerClient, relyingParty, type RegisteredClient } from '../helpers/oidc.js';
import { createPerson, listenHttps, testCertificate } from '../helpers/pages.js';
import { loadConfig } from '../../src/config.js';

const certificate = await testCertificate();
const mailbox = await startMailbox();
/** One Chromium for the whole file: each part opens a context of its own (its own cookies). */
const browser: Browser | undefined = browserSkip ? undefined : await launchBrowser();
after(async () => {
  await browser?.close();
  await mailbox.close();
});

const PASSWORD = 'correct horse 1';
const PLAYER = 'https://player.example.com/callback';
const SIGNED_OUT = 'https://player.example.com/signed-out';
const NATIVE = 'http://127.0.0.1:5555/callback';
/** What the browser shows at the applications' addresses: a page of theirs, which the server never sees. */
const APPLICATION_PAGE =
  '<!doctype html><html lang="en"><head><title>Course player</title></head><body><main><h1>Course player</h1></main></body></html>';

/** The two languages the pages ship in, each walked by a person who speaks it (`locale`) in a browser that asks for it. */
const LANGUAGES = [
  { language: 'en', browserLocale: 'en-US', locale: 'en-GB', name: 'Ada' },
  { language: 'fr', browserLocale: 'fr-FR', locale: 'fr-FR', name: 'Amélie' },
] as const;
type Language = (typeof LANGUAGES)[number];

/**
 * People sign in through Chromium on the server over HTTPS, in English and in French: through a course
 * player (openid-client as the relying party) up to a verified ID token, with the steps a sign-in may
 * require on the way; their account page; a forgotten password, by mail through a real SMTP server;
 * signing out everywhere; the provider's own pages. axe-core checks every page on the way.
 */
forEachEngine(
  'People sign in, in a real browser',
  (h) => {
    let server: Awaited<ReturnType<typeof listenHttps>>;
    let player: RegisteredClient;
    let config: oidc.Configuration;
    const fields: Record<'team' | 'employeeNumber' | 'salaryBand', string> = { team: '', employeeNumber: '', salaryBand: '' };
    const people = new Map<string, { id: string; email: string }>();
    /** Each language's browser, signed in by the first part and kept for the next ones. */
    const signedIn = new Map<string, Page>();
    /** Each language's tokens, from the course player's sign-in. */
    const tokensOf = new Map<string, oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers>();
    let offeringId = '';
    const violations: Record<string, AxeViolation[]> = {};
    const problems: string[] = [];
    const contexts: BrowserContext[] = [];

    /** A new browser context in `language`, where the applications' addresses answer with a page of theirs. */
    async function newPage({ browserLocale }: Language): Promise<Page> {
      const context = await browser!.newContext({ ignoreHTTPSErrors: true, locale: browserLocale });
      contexts.push(context);
      for (const address of ['https://player.example.com/**', 'http://127.0.0.1:5555/**']) {
        await context.route(address, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: APPLICATION_PAGE }));
      }
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
      });
      page.on('response', (response) => {
        if (response.status() >= 500) problems.push(`${response.status()} ${response.url()}`);
      });
      return page;
    }

    /** Runs axe on the page as it stands, under `name`, after checking that it speaks `language`. */
    async function checked(page: Page, name: string, { language }: Language): Promise<void> {
      assert.equal(await page.getAttribute('html', 'lang'), language, `${name} (${language}) at ${page.url()}`);
      violations[`${name} (${language})`] = await axeViolations(page);
    }

    const text = async (page: Page) => (await page.locator('main').innerText()).replace(/\s+/g, ' ');
    const submit = (page: Page, action: string) => page.locator(`form[action$="${action}"] button[type="submit"]`).first().click();

    before(async () => {
      if (browserSkip) return;
      server = await listenHttps(h.app, certificate);
      player = await registerClient(h.database.url, h.org.id, 'Course player', ['--redirect-uri', PLAYER, '--post-logout-redirect-uri', SIGNED_OUT]);
      config = await relyingParty(server.origin, server.agent, player);
      const profile = await h.create('userfieldcategories', { name: 'Profile', type: 'public' });
      const hr = await h.create('userfieldcategories', { name: 'HR only', type: 'private' });
      fields.team = await h.create('userfields', { type: 'text', name: 'Team', categoryId: profile });
      fields.employeeNumber = await h.create('userfields', { type: 'text', name: 'Employee number', categoryId: profile });
      fields.salaryBand = await h.create('userfields', { type: 'text', name: 'Salary band', categoryId: hr });
      offeringId = await h.create('offerings', { title: 'Fire safety' });
      for (const { language, locale, name } of LANGUAGES) {
        for (const role of ['learner', 'reset']) {
          const email = `${role}.${language}@example.com`;
          const id = await createPerson(h, { email, password: PASSWORD, firstName: name, lastName: 'Martin', locale });
          people.set(`${role}.${language}`, { id, email });
          assert.equal((await h.put(`users/${id}/userfieldvalues`, { [fields.salaryBand]: 'Band 7 (confidential)' })).statusCode, 204);
        }
        await h.create('registrations', { userId: people.get(`learner.${language}`)!.id, offeringId });
      }
      // After the people were made: a field made required, and the custom agreement, are asked at their next sign-in.
      assert.equal((await h.put(`userfields/${fields.employeeNumber}`, { required: true })).statusCode, 204);
      assert.equal((await h.put('agreements/custom', { title: 'House rules', text: 'Be kind.\nBe on time.' })).statusCode, 204);
    });
    after(async () => {
      for (const context of contexts) await context.close();
      await server?.close();
    });

    it(
      'signs in through the course player up to a verified ID token, asked on the way for the required field and agreement',
      { skip: browserSkip },
      async () => {
        for (const language of LANGUAGES) {
          const person = people.get(`learner.${language.language}`)!;
          const page = await newPage(language);
          const auth = await authorization(config, PLAYER, 'openid email profile registrations');
          await page.goto(auth.url.href);
          await page.waitForURL(/\/interaction\//);
          await checked(page, 'application sign-in', language);

          await page.locator('#email').fill(person.email);
          await page.locator('#password').fill('not the password');
          await page.locator('#password').press('Enter');
          await page.locator('.notice, [role="alert"]').first().waitFor();
          assert.equal(await page.locator('#email').inputValue(), person.email, 'the email is kept');
          await checked(page, 'sign-in refused', language);

          await page.locator('#password').fill(PASSWORD);
          await page.locator('#password').press('Enter');
          await page.waitForURL(/\/continue\?/);
          assert.match(await text(page), /Employee number/);
          assert.match(await text(page), /House rules/);
          await checked(page, 'required steps', language);
          await page.locator(`[name="field.${fields.employeeNumber}"]`).fill(`E-${language.language}`);
          await page.locator('input[name="agree"][value="custom"]').check();
          await submit(page, '/continue');
          await page.waitForURL((url) => url.href.startsWith(PLAYER));

          const tokens = await auth.redeem(page.url());
          const claims = tokens.claims()!;
          assert.equal(claims.sub, person.id);
          assert.equal(claims.email, person.email);
          assert.equal(claims.locale, language.locale);
          assert.deepEqual(claims.active_offerings, [offeringId]);
          tokensOf.set(language.language, tokens);
          signedIn.set(language.language, page);
          // What the person typed and accepted is the API's as soon as they are back.
          assert.deepEqual((await h.get(`users/${person.id}/userfieldvalues`)).json()[fields.employeeNumber], `E-${language.language}`);
          assert.equal((await h.get(`users/${person.id}/agreements/custom`)).json().agreed, true);
          assert.ok((await h.get(`users/${person.id}`)).json().lastLoginDate);
        }
      },
    );

    it('lets the course player see an ejection at its next launch', { skip: browserSkip }, async () => {
      const { language } = LANGUAGES[0];
      const person = people.get(`learner.${language}`)!;
      const launch = async () => (await oidc.fetchUserInfo(config, tokensOf.get(language)!.access_token, person.id)).active_offerings;
      assert.deepEqual(await launch(), [offeringId]);
      const [registration] = (await h.get(`registrations?userId=${person.id}`)).json().results;
      assert.equal((await h.put(`registrations/${registration.id}`, { status: 'ejected' })).statusCode, 204);
      assert.deepEqual(await launch(), []);
    });

    it('lets a person edit a public field on their account page, and never shows or takes a private one', { skip: browserSkip }, async () => {
      for (const language of LANGUAGES) {
        const person = people.get(`learner.${language.language}`)!;
        const page = signedIn.get(language.language)!;
        await page.goto(`${server.origin}/o/${h.org.id}/account`);
        await checked(page, 'account', language);
        const shown = await text(page);
        assert.match(shown, /Team/);
        assert.doesNotMatch(shown, /Salary band|Band 7|HR only/);
        assert.equal(await page.locator(`[name="field.${fields.salaryBand}"]`).count(), 0);

        await page.locator(`[name="field.${fields.team}"]`).fill('Blue');
        // A private field slipped into the form, as someone editing the page would: it is not taken.
        await page
          .locator('form[action$="/account/details"]')
          .evaluate(
            (form: { insertAdjacentHTML(position: string, text: string): void }, salaryBand: string) =>
              form.insertAdjacentHTML(
                'beforeend',
                `<input type="hidden" name="shown" value="${salaryBand}" /><input type="hidden" name="field.${salaryBand}" value="Band 1" />`,
              ),
            fields.salaryBand,
          );
        await submit(page, '/account/details');
        await page.locator('.notice').first().waitFor();
        await checked(page, 'account saved', language);
        assert.equal(await page.locator(`[name="field.${fields.team}"]`).inputValue(), 'Blue');
        const values = (await h.get(`users/${person.id}/userfieldvalues`)).json();
        assert.equal(values[fields.team], 'Blue');
        assert.equal(values[fields.salaryBand], 'Band 7 (confidential)');
      }
    });

    it('resets a forgotten password through the link the mail brings, once', { skip: browserSkip }, async () => {
      for (const language of LANGUAGES) {
        const person = people.get(`reset.${language.language}`)!;
        const page = await newPage(language);
        await page.goto(`${server.origin}/o/${h.org.id}/sign-in`);
        await checked(page, 'sign-in', language);
        await page.locator(`a[href$="/forgot-password"]`).click();
        await page.waitForURL(/\/forgot-password$/);
        await checked(page, 'forgot password', language);
        await page.locator('#email').fill(person.email);
        await submit(page, '/forgot-password');
        await page.locator('.notice').first().waitFor();
        await checked(page, 'link sent', language);

        const mail = await mailbox.next(person.email);
        const link = /https:\/\/\S+\/reset-password\/\S+/.exec(mail.text)?.[0];
        assert.ok(link?.startsWith(`${server.origin}/o/${h.org.id}/reset-password/`), mail.text);
        await page.goto(link!);
        await checked(page, 'new password', language);
        await page.locator('#password').fill('a brand new one 2');
        await page.locator('#confirm').fill('a brand new one 2');
        await page.locator('#confirm').press('Enter');
        await page.waitForURL(/\/sign-in\?done=password$/);
        await checked(page, 'sign-in after a new password', language);
        await page.locator('#email').fill(person.email);
        await page.locator('#password').fill('a brand new one 2');
        await page.locator('#password').press('Enter');
        // Signed in with the new password: on to the steps (this person has not been through them yet).
        await page.waitForURL(/\/continue\?/);

        await page.goto(link!);
        assert.match(await text(page), language.language === 'en' ? /expired or was used already/ : /a expiré ou a déjà servi/);
        await checked(page, 'link used', language);
      }
    });

    it('signs out everywhere: the other browser and the course player lose the person at once', { skip: browserSkip }, async () => {
      for (const language of LANGUAGES) {
        const person = people.get(`learner.${language.language}`)!;
        const page = signedIn.get(language.language)!;
        const other = await newPage(language);
        await other.goto(`${server.origin}/o/${h.org.id}/sign-in`);
        await other.locator('#email').fill(person.email);
        await other.locator('#password').fill(PASSWORD);
        await other.locator('#password').press('Enter');
        await other.waitForURL(/\/account$/);

        await page.goto(`${server.origin}/o/${h.org.id}/account`);
        await submit(page, '/sign-out-everywhere');
        await page.waitForURL(/\/sign-in\?done=signed-out$/);
        await checked(page, 'signed out', language);
        await other.reload();
        assert.match(other.url(), /\/sign-in\?next=/);
        await assert.rejects(
          oidc.fetchUserInfo(config, tokensOf.get(language.language)!.access_token, person.id),
          (error: oidc.WWWAuthenticateChallengeError) => {
            assert.equal(error.status, 401);
            return true;
          },
        );
      }
    });

    it("shows the provider's own pages in the pages' look: a native app's confirmation, sign-out, refusals", { skip: browserSkip }, async () => {
      const desktop = await registerClient(h.database.url, h.org.id, 'Desktop app', ['--redirect-uri', NATIVE, '--public']);
      const native = await relyingParty(server.origin, server.agent, desktop);
      for (const language of LANGUAGES) {
        const person = people.get(`learner.${language.language}`)!;
        const page = await newPage(language);
        const auth = await authorization(native, NATIVE);
        await page.goto(auth.url.href);
        await page.locator('#email').fill(person.email);
        await page.locator('#password').fill(PASSWORD);
        await page.locator('#password').press('Enter');
        await page.locator('form[action$="/consent"]').waitFor();
        assert.match(await text(page), /Desktop app/);
        await checked(page, 'application confirmation', language);
        await submit(page, '/consent');
        await page.waitForURL((url) => url.href.startsWith(NATIVE));
        const tokens = await auth.redeem(page.url());

        await page.goto(oidc.buildEndSessionUrl(native, { id_token_hint: tokens.id_token!, client_id: desktop.clientId }).href);
        await page.locator('button[name="logout"]').waitFor();
        await checked(page, 'sign-out question', language);
        await page.locator('button[name="logout"]').click();
        await page.waitForURL(/\/oauth\/logout\/success/);
        await checked(page, 'signed out of the applications', language);

        await page.goto((await authorization(config, 'https://evil.example.com/callback')).url.href);
        assert.match(await text(page), /redirect_uri/);
        await checked(page, 'refused application request', language);
        await page.goto(`${server.origin}/o/${h.org.id}/no-such-page`);
        await checked(page, 'page not found', language);
      }
    });

    it('finds no serious or critical accessibility violation on any page, in either language', { skip: browserSkip }, () => {
      const pages = Object.keys(violations);
      assert.equal(pages.length, 34, pages.join(', '));
      assert.deepEqual(
        Object.entries(violations).filter(([, found]) => found.length > 0),
        [],
      );
      assert.deepEqual(problems, []);
    });
  },
  // The people's settings as the server reads them from its environment: SMTP_URL names the test's SMTP server.
  { https: certificate, people: loadConfig({ SMTP_URL: mailbox.url, MAIL_FROM: 'training@example.com' }).people },
);
