import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import * as oidc from 'openid-client';
import { main } from '../../src/cli/main.js';
import { forEachEngine } from '../helpers/harness.js';
import { authorization, backTo, registerClient, relyingParty, signInThrough, type RegisteredClient } from '../helpers/oidc.js';
import { createPerson, formActionOf, listenHttps, overHttps, PageBrowser, testCertificate, titleOf } from '../helpers/pages.js';

const certificate = await testCertificate();
const PASSWORD = 'correct horse 1';
const PORTAL = 'https://portal.example.com/callback';
const LOOPBACK = 'http://127.0.0.1:5555/callback';

/**
 * What the provider refuses, and the native apps it serves: clients registered with the command line
 * (a loopback redirect, no secret), redirect URIs not registered, requests without PKCE, a person of
 * one organization at another's application, a sign-in cancelled or carried to another browser.
 */
forEachEngine(
  'OpenID Connect: native apps and refusals',
  (h) => {
    let server: Awaited<ReturnType<typeof listenHttps>>;
    let portal: RegisteredClient;
    let config: oidc.Configuration;
    const browser = () => new PageBrowser(overHttps(server.origin, server.agent));

    before(async () => {
      server = await listenHttps(h.app, certificate);
      portal = await registerClient(h.database.url, h.org.id, 'Portal', ['--redirect-uri', PORTAL]);
      config = await relyingParty(server.origin, server.agent, portal);
      await createPerson(h, { email: 'ada@example.com', password: PASSWORD, firstName: 'Ada' });
    });
    after(() => server?.close());

    it('signs a person in to a native app registered with a loopback redirect and no secret; the person confirms it', async () => {
      const app = await registerClient(h.database.url, h.org.id, 'Desktop app', ['--redirect-uri', LOOPBACK, '--public']);
      assert.equal(app.clientSecret, undefined);
      assert.deepEqual(app.redirectUris, [LOOPBACK]);
      const native = await relyingParty(server.origin, server.agent, app);
      const auth = await authorization(native, LOOPBACK, 'openid email');
      const walker = browser();
      let reply = await walker.follow(await walker.get(auth.url.href));
      reply = await walker.follow(
        await walker.post(formActionOf(reply.body, /\/interaction\/[^/]+$/)!, { email: 'ada@example.com', password: PASSWORD }),
        backTo(LOOPBACK),
      );
      // Anyone can imitate an app that keeps no secret: the person says that this sign-in is theirs.
      assert.equal(reply.status, 200);
      assert.match(reply.body, /Desktop app asks to sign you in/);
      reply = await walker.follow(await walker.post(formActionOf(reply.body, /\/consent$/)!, {}), backTo(LOOPBACK));
      assert.ok(reply.location?.startsWith(`${LOOPBACK}?code=`), reply.location);
      const tokens = await auth.redeem(reply.location!);
      assert.equal(tokens.claims()!.email, 'ada@example.com');
      // An app without a secret gets a refresh token, which works without one.
      assert.ok(tokens.refresh_token);
      const renewed = await oidc.refreshTokenGrant(native, tokens.refresh_token);
      assert.equal((await oidc.fetchUserInfo(native, renewed.access_token, tokens.claims()!.sub)).email, 'ada@example.com');
    });

    it('registers no client whose redirect leaves TLS for anything but the loopback', async () => {
      const err: string[] = [];
      const code = await main(
        ['clients', 'create', '--org', h.org.id, '--name', 'Bad', '--redirect-uri', 'http://portal.example.com/callback', '--json'],
        { DATABASE_URL: h.database.url },
        { out: () => {}, err: (line) => err.push(line) },
      );
      assert.notEqual(code, 0);
      assert.match(err.join('\n'), /must be https; http is allowed to a loopback address only/);
    });

    it('refuses a redirect URI that is not registered, with its own page and no redirect, in the browser’s language', async () => {
      for (const [language, words] of [
        ['en', /<html lang="en"/],
        ['fr', /<html lang="fr"/],
      ] as const) {
        const auth = await authorization(config, 'https://evil.example.com/callback');
        const reply = await browser().get(auth.url.href, { 'accept-language': language });
        assert.equal(reply.status, 400);
        assert.equal(reply.location, undefined);
        assert.match(String(reply.headers['content-type']), /text\/html/);
        assert.match(reply.body, words);
        assert.match(reply.body, /redirect_uri/);
        assert.doesNotMatch(reply.body, /evil\.example\.com"/, 'no link to the address refused');
      }
      const unknown = await browser().get(
        `/oauth/authorize?client_id=nobody&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(PORTAL)}`,
      );
      assert.equal(unknown.status, 400);
      assert.equal(unknown.location, undefined);
      assert.match(unknown.body, /invalid_client/);
    });

    it('sends a request without PKCE back to the application with an error, before any sign-in', async () => {
      const url = oidc.buildAuthorizationUrl(config, { redirect_uri: PORTAL, scope: 'openid', state: 'x' });
      const reply = await browser().get(url.href);
      assert.equal(reply.status, 303);
      const back = new URL(reply.location!);
      assert.equal(`${back.origin}${back.pathname}`, PORTAL);
      assert.equal(back.searchParams.get('error'), 'invalid_request');
      assert.match(back.searchParams.get('error_description')!, /PKCE/);
    });

    it("never signs a person of one organization in to another's application", async () => {
      const other = await h.createOrganization('Elsewhere');
      const theirs = await registerClient(h.database.url, other.id, 'Their portal', ['--redirect-uri', PORTAL]);
      const theirConfig = await relyingParty(server.origin, server.agent, theirs);
      await createPerson(h, { email: 'bob@example.com', password: PASSWORD }, other.token);

      // Signed in at this organization: their application still asks, at their address, and this person's password is refused there.
      const walker = browser();
      assert.equal((await walker.signIn(h.org.id, 'ada@example.com', PASSWORD)).status, 303);
      const auth = await authorization(theirConfig, PORTAL);
      const form = await walker.follow(await walker.get(auth.url.href), backTo(PORTAL));
      assert.equal(form.status, 200, titleOf(form.body));
      const action = formActionOf(form.body, /\/interaction\/[^/]+$/)!;
      assert.match(action, new RegExp(`^/o/${other.id}/interaction/`));
      const refused = await walker.post(action, { email: 'ada@example.com', password: PASSWORD });
      assert.equal(refused.status, 401);
      assert.equal(refused.location, undefined);

      // The interaction is theirs: this organization's address does not know it.
      const uid = action.split('/').pop()!;
      assert.equal((await walker.get(`/o/${h.org.id}/interaction/${uid}`)).status, 404);
      assert.equal((await walker.post(`/o/${h.org.id}/interaction/${uid}`, { email: 'ada@example.com', password: PASSWORD })).status, 404);

      // Their own person gets through, and this organization's application does not take their session.
      const bobs = await signInThrough(walker, auth, 'bob@example.com', PASSWORD);
      assert.equal((await auth.redeem(bobs)).claims()!.email, 'bob@example.com');
      const ours = await authorization(config, PORTAL);
      const tokens = await ours.redeem(await signInThrough(walker, ours, 'ada@example.com', PASSWORD));
      assert.equal(tokens.claims()!.email, 'ada@example.com');
    });

    it('sends a cancelled sign-in back to the application as access_denied', async () => {
      const walker = browser();
      const auth = await authorization(config, PORTAL, 'openid', { state: 'cancelled' });
      const form = await walker.follow(await walker.get(auth.url.href));
      const reply = await walker.follow(await walker.post(formActionOf(form.body, /\/abort$/)!, {}), backTo(PORTAL));
      const back = new URL(reply.location!);
      assert.equal(back.searchParams.get('error'), 'access_denied');
      assert.equal(back.searchParams.get('state'), 'cancelled');
    });

    it('answers a sign-in carried to another browser, or finished, with a page that says so', async () => {
      const walker = browser();
      const auth = await authorization(config, PORTAL);
      const form = await walker.follow(await walker.get(auth.url.href));
      const action = formActionOf(form.body, /\/interaction\/[^/]+$/)!;
      const elsewhere = await browser().get(action);
      assert.equal(elsewhere.status, 400);
      assert.match(elsewhere.body, /<h1/);
      await auth.redeem((await walker.follow(await walker.post(action, { email: 'ada@example.com', password: PASSWORD }), backTo(PORTAL))).location!);
      assert.equal((await walker.get(action)).status, 400, 'finished');
    });
  },
  { https: certificate },
);
