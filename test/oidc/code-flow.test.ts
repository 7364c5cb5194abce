import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import * as oidc from 'openid-client';
import { forEachEngine } from '../helpers/harness.js';
import { authorization, backTo, hiddenFieldsOf, registerClient, relyingParty, signInThrough, type RegisteredClient } from '../helpers/oidc.js';
import { createPerson, formActionOf, listenHttps, overHttps, PageBrowser, testCertificate, titleOf } from '../helpers/pages.js';

const certificate = await testCertificate();
const PASSWORD = 'correct horse 1';
const PLAYER = 'https://player.example.com/callback';
const SIGNED_OUT = 'https://player.example.com/signed-out';

/**
 * A course player signs people in with this server as its OpenID Connect provider, through openid-client
 * over real HTTPS: discovery, the authorization code with PKCE up to an ID token whose signature is
 * checked against the JWKS, userinfo and its claims, introspection, refresh, revocation, the
 * ejection seen at the next launch, and RP-initiated logout.
 */
forEachEngine(
  'OpenID Connect: the authorization code flow with openid-client',
  (h) => {
    let server: Awaited<ReturnType<typeof listenHttps>>;
    let client: RegisteredClient;
    let config: oidc.Configuration;
    let people = 0;

    const browser = () => new PageBrowser(overHttps(server.origin, server.agent));
    /** A new person of the organization, who can sign in straight through (the standard agreement accepted). */
    async function person(extra: Record<string, unknown> = {}) {
      people += 1;
      const email = `learner.${people}@example.com`;
      const id = await createPerson(h, { email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace', ...extra });
      return { id, email };
    }

    before(async () => {
      server = await listenHttps(h.app, certificate);
      client = await registerClient(h.database.url, h.org.id, 'Course player', ['--redirect-uri', PLAYER, '--post-logout-redirect-uri', SIGNED_OUT]);
      config = await relyingParty(server.origin, server.agent, client);
    });
    after(() => server?.close());

    it('publishes one discovery document for the whole authorization server, and public keys only', async () => {
      const metadata = config.serverMetadata();
      const origin = server.origin;
      assert.equal(metadata.issuer, origin);
      assert.equal(metadata.authorization_endpoint, `${origin}/oauth/authorize`);
      assert.equal(metadata.token_endpoint, `${origin}/oauth/token`);
      assert.equal(metadata.userinfo_endpoint, `${origin}/oauth/userinfo`);
      assert.equal(metadata.jwks_uri, `${origin}/oauth/jwks`);
      assert.equal(metadata.end_session_endpoint, `${origin}/oauth/logout`);
      assert.equal(metadata.revocation_endpoint, `${origin}/oauth/revoke`);
      assert.equal(metadata.introspection_endpoint, `${origin}/oauth/introspect`);
      assert.deepEqual(metadata.response_types_supported, ['code']);
      assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
      for (const scope of ['openid', 'email', 'profile', 'registrations', 'offline_access', 'read', 'write']) {
        assert.ok(metadata.scopes_supported?.includes(scope), scope);
      }
      for (const claim of ['email', 'name', 'locale', 'account_type', 'active_offerings'])
        assert.ok(metadata.claims_supported?.includes(claim), claim);
      assert.ok(metadata.grant_types_supported?.includes('client_credentials'));

      const jwks = await fetch(metadata.jwks_uri, server);
      assert.equal(jwks.status, 200);
      const { keys } = JSON.parse(jwks.body) as JSONWebKeySet;
      assert.deepEqual(keys.map((key) => key.alg).sort(), ['ES256', 'RS256']);
      for (const key of keys) {
        assert.equal(key.use, 'sig');
        for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi'])
          assert.equal((key as Record<string, unknown>)[secret], undefined, `${key.kid} shows ${secret}`);
      }
    });

    it('signs a person in up to a verified ID token, whose claims say who they are; lastLoginDate is already written', async () => {
      const ada = await person({ locale: 'fr-FR', accountType: 'courseAdministrator' });
      const before = Date.now();
      const auth = await authorization(config, PLAYER);
      const callback = await signInThrough(browser(), auth, ada.email, PASSWORD);
      const tokens = await auth.redeem(callback);
      const claims = tokens.claims()!;
      assert.equal(claims.sub, ada.id);
      assert.equal(claims.iss, server.origin);
      assert.equal(claims.aud, client.clientId);
      assert.equal(claims.email, ada.email);
      assert.equal(claims.name, 'Ada Lovelace');
      assert.equal(claims.given_name, 'Ada');
      assert.equal(claims.family_name, 'Lovelace');
      assert.equal(claims.locale, 'fr-FR');
      assert.equal(claims.account_type, 'courseAdministrator');

      // The signature, checked again apart from the library, against the published keys; a token altered is refused.
      const { keys } = JSON.parse((await fetch(`${server.origin}/oauth/jwks`, server)).body) as JSONWebKeySet;
      const verified = await jwtVerify(tokens.id_token!, createLocalJWKSet({ keys }), { issuer: server.origin, audience: client.clientId });
      assert.equal(verified.payload.sub, ada.id);
      const [header, payload, signature] = tokens.id_token!.split('.');
      const forged = Buffer.from(JSON.stringify({ ...verified.payload, sub: 'someone-else' })).toString('base64url');
      await assert.rejects(jwtVerify(`${header}.${forged}.${signature}`, createLocalJWKSet({ keys })), /signature verification failed/);
      assert.ok(payload);

      // Written before the application got its code: readable through the API as soon as the person is back.
      const user = (await h.get(`users/${ada.id}`)).json();
      assert.ok(Date.parse(user.lastLoginDate) >= before - 1000 && Date.parse(user.lastLoginDate) <= Date.now(), user.lastLoginDate);

      const info = await oidc.fetchUserInfo(config, tokens.access_token, ada.id);
      assert.equal(info.email, ada.email);
      assert.equal(info.name, 'Ada Lovelace');
      assert.equal(info.locale, 'fr-FR');
      assert.equal(info.account_type, 'courseAdministrator');
      assert.equal(info.active_offerings, undefined, 'not asked for: no registrations scope');

      const introspected = await oidc.tokenIntrospection(config, tokens.access_token);
      assert.equal(introspected.active, true);
      assert.equal(introspected.sub, ada.id);
      assert.equal(introspected.client_id, client.clientId);
    });

    it('asks on the way for a field made required and for the custom agreement; the API reads both as soon as the person is back', async () => {
      const steps = await h.createOrganization('Required steps');
      const as = { token: steps.token };
      const category = await h.create('userfieldcategories', { name: 'Profile', type: 'public' }, as);
      const field = await h.create('userfields', { type: 'text', name: 'Employee number', categoryId: category }, as);
      const email = 'steps@example.com';
      const id = await createPerson(h, { email, password: PASSWORD, firstName: 'Ada' }, steps.token);
      // Made required after the person was made: v5's "prompted at their next login".
      assert.equal((await h.put(`userfields/${field}`, { required: true }, as)).statusCode, 204);
      assert.equal((await h.put('agreements/custom', { title: 'House rules', text: 'Be kind.' }, as)).statusCode, 204);
      const intranet = await registerClient(h.database.url, steps.id, 'Intranet', ['--redirect-uri', PLAYER]);
      const auth = await authorization(await relyingParty(server.origin, server.agent, intranet), PLAYER);

      const walker = browser();
      let reply = await walker.follow(await walker.get(auth.url.href));
      reply = await walker.follow(
        await walker.post(formActionOf(reply.body, /\/interaction\/[^/]+$/)!, { email, password: PASSWORD }),
        backTo(PLAYER),
      );
      assert.equal(reply.status, 200);
      assert.match(reply.body, /Employee number/);
      assert.match(reply.body, /House rules/);
      // The form leads on, through redirects, to the application: its CSP allows the application's address.
      assert.match(String(reply.headers['content-security-policy']), /form-action 'self' https:\/\/player\.example\.com;/);
      const action = formActionOf(reply.body, /\/continue$/)!;
      const hidden = hiddenFieldsOf(reply.body);
      // Sent without the agreement ticked: the page asks again, and nothing is written.
      const refused = await walker.post(action, { ...hidden, [`field.${field}`]: 'E-42' });
      assert.equal(refused.status, 400);
      assert.deepEqual((await h.get(`users/${id}/userfieldvalues`, as)).json(), {});
      reply = await walker.follow(await walker.post(action, { ...hidden, [`field.${field}`]: 'E-42', agree: 'custom' }), backTo(PLAYER));
      assert.ok(reply.location?.startsWith(PLAYER), `${reply.status} ${titleOf(reply.body)}`);

      // What the person typed is the API's before the application even redeems its code.
      assert.deepEqual((await h.get(`users/${id}/userfieldvalues`, as)).json(), { [field]: 'E-42' });
      const agreed = (await h.get(`users/${id}/agreements/custom`, as)).json();
      assert.equal(agreed.agreed, true);
      assert.equal(agreed.text, 'Be kind.');
      assert.ok((await h.get(`users/${id}`, as)).json().lastLoginDate);
      assert.equal((await auth.redeem(reply.location!)).claims()!.sub, id);
    });

    it('passes a person already signed in at the organization straight back to the application', async () => {
      const grace = await person();
      const walker = browser();
      assert.equal((await walker.signIn(h.org.id, grace.email, PASSWORD)).status, 303);
      const auth = await authorization(config, PLAYER);
      const reply = await walker.follow(await walker.get(auth.url.href), backTo(PLAYER));
      assert.ok(reply.location?.startsWith(PLAYER), `${reply.status} ${titleOf(reply.body)}`);
      assert.equal((await auth.redeem(reply.location!)).claims()!.sub, grace.id);
    });

    it('tells the course player at each launch whether a registration is active: after an ejection it is not', async () => {
      const alan = await person();
      const offeringId = await h.create('offerings', { title: 'Fire safety' });
      const otherId = await h.create('offerings', { title: 'First aid' });
      const registrationId = await h.create('registrations', { userId: alan.id, offeringId });
      await h.create('registrations', { userId: alan.id, offeringId: otherId });
      const auth = await authorization(config, PLAYER, 'openid email profile registrations');
      const tokens = await auth.redeem(await signInThrough(browser(), auth, alan.email, PASSWORD));
      assert.deepEqual([...(tokens.claims()!.active_offerings as string[])].sort(), [offeringId, otherId].sort());
      const launch = async () => ((await oidc.fetchUserInfo(config, tokens.access_token, alan.id)).active_offerings as string[]).sort();
      assert.deepEqual(await launch(), [offeringId, otherId].sort());

      assert.equal((await h.put(`registrations/${registrationId}`, { status: 'ejected' })).statusCode, 204);
      assert.deepEqual(await launch(), [otherId]);
    });

    it('gives a refresh token for offline_access, renews with it, and revokes it', async () => {
      const edsger = await person();
      const auth = await authorization(config, PLAYER, 'openid offline_access', { prompt: 'consent' });
      const walker = browser();
      // offline_access is asked with prompt=consent: the person confirms after signing in.
      let reply = await walker.follow(await walker.get(auth.url.href), backTo(PLAYER));
      reply = await walker.follow(
        await walker.post(formActionOf(reply.body, /\/interaction\/[^/]+$/)!, { email: edsger.email, password: PASSWORD }),
        backTo(PLAYER),
      );
      assert.equal(reply.status, 200);
      assert.match(reply.body, /Course player asks to sign you in/);
      reply = await walker.follow(await walker.post(formActionOf(reply.body, /\/consent$/)!, {}), backTo(PLAYER));
      const tokens = await auth.redeem(reply.location!);
      assert.ok(tokens.refresh_token, 'a refresh token');
      const renewed = await oidc.refreshTokenGrant(config, tokens.refresh_token);
      assert.notEqual(renewed.access_token, tokens.access_token);
      assert.equal((await oidc.fetchUserInfo(config, renewed.access_token, edsger.id)).sub, edsger.id);

      await oidc.tokenRevocation(config, renewed.refresh_token ?? tokens.refresh_token);
      await assert.rejects(oidc.refreshTokenGrant(config, renewed.refresh_token ?? tokens.refresh_token), (error: oidc.ResponseBodyError) => {
        assert.equal(error.error, 'invalid_grant');
        return true;
      });
      await oidc.tokenRevocation(config, renewed.access_token);
      assert.equal((await oidc.tokenIntrospection(config, renewed.access_token)).active, false);
    });

    it('refuses a code redeemed twice, and ends the tokens the first redemption got', async () => {
      const barbara = await person();
      const auth = await authorization(config, PLAYER);
      const callback = await signInThrough(browser(), auth, barbara.email, PASSWORD);
      const tokens = await auth.redeem(callback);
      await assert.rejects(auth.redeem(callback), (error: oidc.ResponseBodyError) => {
        assert.equal(error.error, 'invalid_grant');
        return true;
      });
      assert.equal((await oidc.tokenIntrospection(config, tokens.access_token)).active, false);
    });

    it('ends the tokens when the person signs out everywhere, or is deactivated', async () => {
      for (const end of ['sign-out everywhere', 'deactivation'] as const) {
        const someone = await person();
        const walker = browser();
        const auth = await authorization(config, PLAYER);
        const tokens = await auth.redeem(await signInThrough(walker, auth, someone.email, PASSWORD));
        assert.equal((await oidc.fetchUserInfo(config, tokens.access_token, someone.id)).sub, someone.id);
        if (end === 'deactivation') assert.equal((await h.put(`users/${someone.id}`, { active: false })).statusCode, 204);
        else {
          await walker.get(`/o/${h.org.id}/account`);
          assert.equal((await walker.post(`/o/${h.org.id}/sign-out-everywhere`, {})).status, 303);
        }
        await assert.rejects(oidc.fetchUserInfo(config, tokens.access_token, someone.id), (error: oidc.WWWAuthenticateChallengeError) => {
          assert.equal(error.status, 401, end);
          assert.equal(error.cause[0]!.parameters.error, 'invalid_token', end);
          return true;
        });
      }
    });

    it('signs the person out through the application (RP-initiated logout): the pages forget them too', async () => {
      const ken = await person();
      const walker = browser();
      const auth = await authorization(config, PLAYER);
      const tokens = await auth.redeem(await signInThrough(walker, auth, ken.email, PASSWORD));
      assert.equal((await walker.get(`/o/${h.org.id}/account`)).status, 200);

      const logout = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: SIGNED_OUT, state: 'bye' });
      const question = await walker.get(logout.href);
      assert.equal(question.status, 200);
      assert.match(String(question.headers['content-security-policy']), /frame-ancestors 'none'/);
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(question.body)?.[1];
      assert.ok(xsrf, 'the confirmation carries its token');
      const action = /<form[^>]*id="op.logoutForm"[^>]*action="([^"]+)"|<form[^>]*action="([^"]+)"[^>]*id="op.logoutForm"/.exec(question.body);
      assert.ok(action, question.body);
      // Without the provider's token the sign-out is refused.
      assert.equal((await walker.clone().post(action[1] ?? action[2]!, { _csrf: undefined, logout: 'yes' })).status, 400);
      const done = await walker.post(action[1] ?? action[2]!, { _csrf: undefined, xsrf, logout: 'yes' });
      assert.equal(done.status, 303);
      assert.equal(done.location, `${SIGNED_OUT}?state=bye`);

      const account = await walker.get(`/o/${h.org.id}/account`);
      assert.equal(account.status, 303);
      assert.match(account.location!, /\/sign-in\?next=/);
      // The next sign-in of the application asks for the password again.
      const again = await walker.follow(await walker.get((await authorization(config, PLAYER)).url.href), backTo(PLAYER));
      assert.equal(again.status, 200);
      assert.ok(formActionOf(again.body, /\/interaction\/[^/]+$/));
    });

    it('shows its own page after a sign-out with nowhere to go back to', async () => {
      const walker = browser();
      const question = await walker.get(`/oauth/logout?client_id=${client.clientId}`);
      assert.equal(question.status, 200);
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(question.body)![1]!;
      const done = await walker.follow(await walker.post('/oauth/logout/confirm', { _csrf: undefined, xsrf, logout: 'yes' }));
      assert.equal(done.status, 200);
      assert.match(String(done.headers['content-type']), /text\/html/);
      assert.match(done.body, /<html lang="en"/);
      assert.match(done.body, /signed out/i);
    });
  },
  { https: certificate },
);

/** A GET over the listener's trusted connection. */
async function fetch(url: string, server: { origin: string; agent: Parameters<typeof overHttps>[1] }) {
  return overHttps(server.origin, server.agent)({ method: 'GET', url, headers: {} });
}
