import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { clientsService } from '../../src/oauth/clients.service.js';
import { forEachEngine, type Harness, type Response } from '../helpers/harness.js';

const FORM = 'application/x-www-form-urlencoded';
const OAUTH_TOKEN = /^tpo_[A-Za-z0-9_-]{43}$/;

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

async function form(h: Harness, url: string, body: Record<string, string> | string, headers: Record<string, string> = {}): Promise<Response> {
  return await h.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': FORM, ...headers },
    payload: typeof body === 'string' ? body : new URLSearchParams(body).toString(),
  });
}

function assertOAuthError(response: Response, status: number, error: string): void {
  assert.equal(response.statusCode, status, response.body);
  assert.equal(response.json().error, error, response.body);
  assert.equal(typeof response.json().error_description, 'string');
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.equal(response.headers.pragma, 'no-cache');
}

forEachEngine('OAuth 2.0 client credentials', (h) => {
  let client: { id: string; secret: string };
  let readClient: { id: string; secret: string };

  const token = (body: Record<string, string> = { grant_type: 'client_credentials' }, credentials = client) =>
    form(h, '/oauth/token', body, { authorization: basic(credentials.id, credentials.secret) });

  before(async () => {
    const clients = clientsService(h.database.db);
    const made = await clients.create(h.org.id, { name: 'HR sync' });
    client = { id: made.info.id, secret: made.secret! };
    const reader = await clients.create(h.org.id, { name: 'Reports', scopes: ['read'] });
    readClient = { id: reader.info.id, secret: reader.secret! };
  });

  describe('POST /oauth/token', () => {
    it('issues an expiring bearer token that works on the API like any other', async () => {
      const response = await token();
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers.pragma, 'no-cache');
      const body = response.json();
      assert.match(body.access_token, OAUTH_TOKEN);
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.expires_in, 3600);
      assert.equal(body.scope, 'read write');
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);

      assert.equal((await h.get('users', { token: body.access_token })).statusCode, 200);
      const created = await h.post('users', { email: 'oauth-made@example.com' }, { token: body.access_token });
      assert.equal(created.statusCode, 201, created.body);
    });

    it('accepts client_secret_post when the client cannot send HTTP Basic', async () => {
      const response = await form(h, '/oauth/token', { grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret });
      assert.equal(response.statusCode, 200, response.body);
    });

    it('narrows the scope on request, and a read token may not write', async () => {
      const response = await token({ grant_type: 'client_credentials', scope: 'read' });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().scope, 'read');
      const readToken = response.json().access_token;
      assert.equal((await h.get('users', { token: readToken })).statusCode, 200);
      const refused = await h.post('users', { email: 'not-made@example.com' }, { token: readToken });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().error, 'insufficient_scope');
    });

    it('refuses a scope the client was not given, and an unknown one: invalid_scope', async () => {
      assertOAuthError(await token({ grant_type: 'client_credentials', scope: 'write' }, readClient), 400, 'invalid_scope');
      assertOAuthError(await token({ grant_type: 'client_credentials', scope: 'read admin' }), 400, 'invalid_scope');
      assert.equal((await token({ grant_type: 'client_credentials' }, readClient)).json().scope, 'read');
    });

    it('refuses a wrong secret, an unknown client and no credentials alike: invalid_client, 401 with a Basic challenge', async () => {
      for (const response of [
        await token(undefined, { id: client.id, secret: `${client.secret}x` }),
        await token(undefined, { id: '0'.repeat(32), secret: client.secret }),
        await form(h, '/oauth/token', { grant_type: 'client_credentials' }),
        await form(h, '/oauth/token', { grant_type: 'client_credentials' }, { authorization: 'Bearer abc' }),
        await form(h, '/oauth/token', { grant_type: 'client_credentials', client_id: client.id, client_secret: 'wrong' }),
      ]) {
        assertOAuthError(response, 401, 'invalid_client');
        assert.equal(response.headers['www-authenticate'], 'Basic realm="training-api"');
      }
    });

    it('refuses other grant types (unsupported_grant_type) and a missing one (invalid_request)', async () => {
      for (const grant of ['password', 'authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer']) {
        assertOAuthError(await token({ grant_type: grant }), 400, 'unsupported_grant_type');
      }
      assertOAuthError(await token({}), 400, 'invalid_request');
      assertOAuthError(await token({ grant_type: '' }), 400, 'invalid_request');
    });

    it('refuses malformed requests with invalid_request', async () => {
      const headers = { authorization: basic(client.id, client.secret) };
      assertOAuthError(await form(h, '/oauth/token', 'grant_type=client_credentials&grant_type=client_credentials', headers), 400, 'invalid_request');
      assertOAuthError(
        await form(h, '/oauth/token', { grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret }, headers),
        400,
        'invalid_request',
      );
      const json = await h.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '{"grant_type":"client_credentials"}',
      });
      assertOAuthError(json, 400, 'invalid_request');
    });

    it('refuses client credentials that hold NUL, on both endpoints, in the RFC 6749 shape', async () => {
      // "\0:\0" in HTTP Basic; a form's client_id or client_secret holding NUL
      const nulBasic = { authorization: 'Basic AAA6AA==' };
      for (const url of ['/oauth/token', '/oauth/revoke']) {
        const response = await form(h, url, { grant_type: 'client_credentials', token: 'tpo_x' }, nulBasic);
        assertOAuthError(response, 401, 'invalid_client');
        const nulForm = await form(h, url, 'grant_type=client_credentials&token=tpo_x&client_id=%00&client_secret=x');
        assertOAuthError(nulForm, 400, 'invalid_request');
        assert.match(nulForm.json().error_description, /client_id: must not contain the NUL character/);
        assertOAuthError(
          await form(h, url, 'grant_type=client_credentials&token=%00', { authorization: basic(client.id, client.secret) }),
          400,
          'invalid_request',
        );
      }
    });

    it('ignores parameters it does not know, as RFC 6749 asks', async () => {
      assert.equal((await token({ grant_type: 'client_credentials', audience: 'x', resource: 'y' })).statusCode, 200);
    });
  });

  describe('POST /oauth/revoke', () => {
    it("revokes a token at once, answers 200 for an unknown one, and refuses another client's token", async () => {
      const issued = (await token()).json().access_token;
      const headers = { authorization: basic(client.id, client.secret) };
      const other = (await token({ grant_type: 'client_credentials' }, readClient)).json().access_token;

      assertOAuthError(await form(h, '/oauth/revoke', { token: other }, headers), 400, 'unauthorized_client');
      assertOAuthError(await form(h, '/oauth/revoke', { token: h.org.token }, headers), 400, 'unauthorized_client');
      assert.equal((await h.get('users', { token: other })).statusCode, 200);

      const revoked = await form(h, '/oauth/revoke', { token: issued, token_type_hint: 'access_token' }, headers);
      assert.equal(revoked.statusCode, 200);
      assert.deepEqual(revoked.json(), {});
      assert.match(String(revoked.headers['content-type']), /^application\/json/);
      assert.equal(revoked.headers['cache-control'], 'no-store');
      const refused = await h.get('users', { token: issued });
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().error, 'invalid_token');

      assert.equal((await form(h, '/oauth/revoke', { token: issued }, headers)).statusCode, 200);
      assert.equal((await form(h, '/oauth/revoke', { token: 'tpo_never-issued' }, headers)).statusCode, 200);
      assertOAuthError(await form(h, '/oauth/revoke', {}, headers), 400, 'invalid_request');
      assertOAuthError(await form(h, '/oauth/revoke', { token: other }), 401, 'invalid_client');
    });
  });

  describe('revoking a client', () => {
    it('makes every token issued to it fail at once, and the client can get no new one', async () => {
      const made = await clientsService(h.database.db).create(h.org.id, { name: 'Doomed' });
      const doomed = { id: made.info.id, secret: made.secret! };
      const issued = [(await token(undefined, doomed)).json().access_token, (await token(undefined, doomed)).json().access_token];
      for (const access of issued) assert.equal((await h.get('users', { token: access })).statusCode, 200);

      const info = await clientsService(h.database.db).revoke(doomed.id);
      assert.ok(info?.revokedDate);
      for (const access of issued) {
        const refused = await h.get('users', { token: access });
        assert.equal(refused.statusCode, 401);
        assert.deepEqual(refused.json(), {
          errors: ['The access token has been revoked'],
          error: 'invalid_token',
          error_description: 'The access token has been revoked',
        });
      }
      assertOAuthError(await token(undefined, doomed), 401, 'invalid_client');
    });
  });

  describe('bearer failures on the API (RFC 6750)', () => {
    it('challenges without a token, and names invalid_token for a bad one, keeping the realm', async () => {
      const missing = await h.get('users', { token: null });
      assert.equal(missing.statusCode, 401);
      assert.equal(missing.headers['www-authenticate'], 'Bearer realm="training-api"');
      assert.deepEqual(missing.json(), { errors: ['Authentication required'] });

      for (const bad of ['tpo_unknown', `tpa_${'A'.repeat(43)}`, 'not-even-close']) {
        const refused = await h.get('users', { token: bad });
        assert.equal(refused.statusCode, 401);
        assert.equal(
          refused.headers['www-authenticate'],
          'Bearer realm="training-api", error="invalid_token", error_description="The access token is invalid"',
        );
        assert.equal(refused.json().error, 'invalid_token');
        assert.equal(refused.json().error_description, 'The access token is invalid');
      }
    });

    it('says why in the challenge too (RFC 6750 §3), with quotes in a description made apostrophes', async () => {
      const notBearer = await h.get('users', { headers: { authorization: 'Basic eDp5' }, token: null });
      assert.equal(notBearer.statusCode, 401);
      assert.equal(notBearer.json().error_description, 'The Authorization header must be "Bearer <token>"');
      assert.equal(
        notBearer.headers['www-authenticate'],
        `Bearer realm="training-api", error="invalid_token", error_description="The Authorization header must be 'Bearer <token>'"`,
      );
    });

    it('names the scope a write lacks: 403 insufficient_scope', async () => {
      const readToken = (await token({ grant_type: 'client_credentials', scope: 'read' })).json().access_token;
      const refused = await h.delete(`users/${'0'.repeat(32)}`, { token: readToken });
      assert.equal(refused.statusCode, 403);
      assert.equal(
        refused.headers['www-authenticate'],
        `Bearer realm="training-api", error="insufficient_scope", error_description="This token lacks the 'write' scope", scope="write"`,
      );
    });
  });

  describe('discovery and documentation', () => {
    it('publishes one RFC 8414 document, the OpenID Connect discovery document, naming both endpoints and every grant', async () => {
      const response = await h.get('/.well-known/oauth-authorization-server', { token: null });
      assert.equal(response.statusCode, 200);
      const metadata = response.json();
      assert.equal(metadata.issuer, 'http://localhost');
      assert.equal(metadata.token_endpoint, 'http://localhost/oauth/token');
      assert.equal(metadata.revocation_endpoint, 'http://localhost/oauth/revoke');
      assert.deepEqual(metadata.grant_types_supported, ['authorization_code', 'refresh_token', 'client_credentials']);
      for (const scope of ['read', 'write', 'scim', 'openid']) assert.ok(metadata.scopes_supported.includes(scope), scope);
      assert.deepEqual((await h.get('/.well-known/openid-configuration', { token: null })).json(), metadata);
    });

    it('documents the endpoints and the oauth2 client credentials scheme beside bearer', async () => {
      const document = (await h.get('openapi.json', { token: null })).json();
      // Each operation states what it needs (route-scopes.test.ts); the document as a whole claims nothing.
      assert.equal(document.security, undefined);
      assert.deepEqual(document.paths['/users'].get.security, [
        { bearer: ['read'] },
        { bearer: ['write'] },
        { oauth2: ['read'] },
        { oauth2: ['write'] },
      ]);
      assert.equal(document.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl, '/oauth/token');
      assert.ok(document.paths['/oauth/token'].post);
      assert.ok(document.paths['/oauth/revoke'].post);
      assert.deepEqual(document.paths['/oauth/token'].servers, [{ url: '/' }]);
      assert.ok(document.paths['/oauth/token'].post.requestBody.content['application/x-www-form-urlencoded']);
    });
  });
});
