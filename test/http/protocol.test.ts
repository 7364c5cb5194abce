import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { tokensService } from '../../src/auth/tokens.service.js';
import { eventually } from '../helpers/eventually.js';
import { forEachEngine, type Response } from '../helpers/harness.js';

const NO_SUCH_ID = { errors: ['No resource exists with the given id.'] };
const NO_SUCH_ADDRESS = { errors: ['No resource exists at this address.'] };
const REALM = 'Bearer realm="training-api"';
const GENERATED_REQUEST_ID = /^[0-9a-f]{32}$/;
const UNSUPPORTED_MEDIA_TYPE = { errors: ['A request body must be sent with Content-Type: application/json'] };
const UNKNOWN_ID = '0190f5d2a1b27c3d8e4f5a6b7c8d9e0f';
const BODY_LIMIT = 4096;
/** The app's own body limit, where the tests do not set one. */
const APP_BODY_LIMIT = 1024 * 1024;

function assertStatus(response: Response, status: number): void {
  assert.equal(response.statusCode, status, `expected ${status}, got ${response.statusCode}: ${response.body}`);
}

function assertInvalidToken(response: Response): void {
  assertStatus(response, 401);
  const body = response.json();
  assert.equal(
    response.headers['www-authenticate'],
    `${REALM}, error="invalid_token", error_description="${body.error_description.replaceAll('"', "'")}"`,
  );
  assert.equal(body.error, 'invalid_token');
  assert.deepEqual(body.errors, [body.error_description]);
}

function assertInsufficientScope(response: Response): void {
  assertStatus(response, 403);
  assert.match(String(response.headers['www-authenticate']), /^Bearer realm="training-api", error="insufficient_scope"/);
  const body = response.json();
  assert.equal(body.error, 'insufficient_scope');
  assert.deepEqual(body.errors, [body.error_description]);
}

/** A 4xx other than 400: exactly one message in `errors`. */
function assertOneError(response: Response, status: number): void {
  assertStatus(response, status);
  const body = response.json();
  assert.deepEqual(Object.keys(body), ['errors']);
  assert.equal(body.errors.length, 1);
  assert.equal(typeof body.errors[0], 'string');
}

function assertFieldErrors(response: Response, fieldErrors: Record<string, string>): void {
  assertStatus(response, 400);
  const body = response.json();
  assert.equal(typeof body.message, 'string');
  assert.deepEqual(body.fieldErrors, fieldErrors);
}

function assertBadRequest(response: Response, problem?: string): void {
  assertStatus(response, 400);
  const body = response.json();
  assert.equal(typeof body.message, 'string');
  assert.equal(body.errors.length, 1);
  if (problem) assert.deepEqual(body.errors, [problem]);
}

/** Sends raw bytes and reads until the server closes the connection. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(request));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

/** Interim (1xx) answers at the start of what was received. */
const INTERIM = /^(?:HTTP\/1\.1 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)*/;

/**
 * A connection that sends a request in steps: `send` writes, `answer` waits until a final answer (after
 * any 1xx) has all its body, and returns everything received so far.
 */
async function stepwise(port: number) {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  let received = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('close', () => (closed = true));
  const complete = () => {
    const final = received.slice(INTERIM.exec(received)![0].length);
    const end = final.indexOf('\r\n\r\n');
    if (end < 0) return false;
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(final.slice(0, end))?.[1] ?? 0);
    return Buffer.byteLength(final.slice(end + 4)) >= length;
  };
  return {
    send: (text: string) => socket.write(text),
    /** What was received once `done` holds of it (or the connection closed). */
    until: async (done: (received: string) => boolean) => {
      await eventually(() => closed || done(received), { what: 'an answer' });
      return received;
    },
    answer: () => eventually(() => closed || complete(), { what: 'a final answer' }).then(() => received),
    closed: () => eventually(() => closed, { what: 'the connection closed' }),
    destroy: () => socket.destroy(),
  };
}

let emailCount = 0;
function newEmail(): string {
  emailCount += 1;
  return `person${emailCount}@example.com`;
}

forEachEngine('protocol', (h) => {
  describe('authentication', () => {
    it('answers 401 without credentials, with the realm challenge', async () => {
      const response = await h.get('users', { token: null });
      assertStatus(response, 401);
      assert.deepEqual(response.json(), { errors: ['Authentication required'] });
      assert.equal(response.headers['www-authenticate'], REALM);
    });

    it('answers 401 invalid_token for an unknown token', async () => {
      assertInvalidToken(await h.get('users', { token: 'tpa_not-a-real-token' }));
    });

    it('answers 401 invalid_token for an Authorization header that is not Bearer', async () => {
      assertInvalidToken(await h.get('users', { token: null, headers: { authorization: `Basic ${btoa('a:b')}` } }));
    });

    it('answers 401 before 404 on unknown paths under both base paths', async () => {
      for (const path of ['/api/v5/nothing-here', '/dc/api/v5/nothing-here', '/api/v5/users/x/y/z']) {
        const response = await h.get(path, { token: null });
        assertStatus(response, 401);
        assert.equal(response.headers['www-authenticate'], REALM);
      }
    });

    it('cannot be bypassed with a percent-encoded base path', async () => {
      for (const path of ['/api/%765/users', '/%61pi/v5/users', '/api/v5/%75sers']) {
        assertStatus(await h.get(path, { token: null }), 401);
        assertStatus(await h.get(path), 200);
      }
    });

    it('answers 401 before 406 and 415', async () => {
      assertStatus(await h.get('users', { token: null, headers: { accept: 'text/html' } }), 401);
      assertStatus(await h.post('users', 'x', { token: null, headers: { 'content-type': 'text/plain' } }), 401);
    });

    it('refuses a revoked token at once', async () => {
      const tokens = tokensService(h.database.db);
      const { token, info } = await tokens.create(h.org.id);
      assertStatus(await h.get('users', { token }), 200);
      await tokens.revoke(info.id);
      assertInvalidToken(await h.get('users', { token }));
    });

    it('refuses an expired token', async () => {
      const token = await h.token(h.org.id, { expiresDate: new Date(Date.now() - 1000) });
      assertInvalidToken(await h.get('users', { token }));
    });

    it('lets a read-only token read but not write', async () => {
      const id = await h.create('users', { email: newEmail() });
      const token = await h.token(h.org.id, { scopes: ['read'] });
      assertStatus(await h.get('users', { token }), 200);
      assertStatus(await h.get(`users/${id}`, { token }), 200);
      assertInsufficientScope(await h.post('users', { email: newEmail() }, { token }));
      assertInsufficientScope(await h.put(`users/${id}`, { firstName: 'Changed' }, { token }));
      assertInsufficientScope(await h.delete(`users/${id}`, { token }));
      assertStatus(await h.get(`users/${id}`), 200);
    });

    it('never takes a token from the query string', async () => {
      const withoutHeader = await h.get('users', { token: null, query: { access_token: h.org.token } });
      assertStatus(withoutHeader, 401);
      assert.equal(withoutHeader.headers['www-authenticate'], REALM);
      const withHeader = await h.get('users', { query: { access_token: h.org.token } });
      assertFieldErrors(withHeader, { access_token: 'unknown query parameter' });
    });
  });

  describe('addresses', () => {
    it('answers 404 with the address message for an unknown path', async () => {
      for (const path of ['/api/v5/nothing-here', '/dc/api/v5/nothing-here', '/api/v5/users/x/y/z', '/nowhere', '/api/v5x/users']) {
        const response = await h.get(path);
        assertStatus(response, 404);
        assert.deepEqual(response.json(), NO_SUCH_ADDRESS);
      }
    });

    it('answers 404 with the id message for malformed and unknown ids', async () => {
      for (const id of ['abc', UNKNOWN_ID, UNKNOWN_ID.toUpperCase(), `${UNKNOWN_ID}0`, "1' or '1'='1"]) {
        const path = `users/${encodeURIComponent(id)}`;
        for (const response of [await h.get(path), await h.put(path, { firstName: 'X' }), await h.delete(path)]) {
          assertStatus(response, 404);
          assert.deepEqual(response.json(), NO_SUCH_ID);
        }
      }
    });

    it('answers 404 for an id far longer than any id, and 401 before it', async () => {
      const path = `users/${'a'.repeat(5000)}`;
      const responses = [await h.get(path), await h.put(path, { firstName: 'X' }), await h.delete(path), await h.get(`${path}/userfieldvalues`)];
      for (const response of responses) {
        assertStatus(response, 404);
        assert.deepEqual(response.json(), NO_SUCH_ID);
      }
      assertStatus(await h.get(path, { token: null }), 401);
    });

    it('answers 405 with Allow for a known path and an unsupported method', async () => {
      const id = await h.create('users', { email: newEmail() });
      for (const [method, path, allow] of [
        ['PATCH', '/api/v5/users', 'GET, HEAD, POST'],
        ['DELETE', '/api/v5/users', 'GET, HEAD, POST'],
        ['PUT', '/dc/api/v5/users/', 'GET, HEAD, POST'],
        ['POST', `/api/v5/users/${id}`, 'DELETE, GET, HEAD, PUT'],
        ['PATCH', `/api/v5/users/${UNKNOWN_ID}`, 'DELETE, GET, HEAD, PUT'],
      ] as const) {
        const response = await h.request(method, path);
        assertOneError(response, 405);
        assert.equal(response.headers.allow, allow, `${method} ${path}`);
      }
    });

    it('answers 404 and 405 before looking at the body', async () => {
      assertStatus(await h.request('PATCH', 'users', '{not json'), 405);
      assertStatus(await h.request('PATCH', 'users', 'x', { headers: { 'content-type': 'text/plain' } }), 405);
      assertStatus(await h.post('nothing-here', '{not json'), 404);
      assertStatus(await h.post('nothing-here', { email: 'x'.repeat(2 * 1024 * 1024) }), 404);
    });

    it('answers 400 in the v5 shape for an address with a malformed percent-encoding', async () => {
      const response = await h.get('/api/v5/users/%E0%A4%A', { headers: { 'x-request-id': 'bad-address' } });
      assertBadRequest(response);
      assert.equal(response.headers['x-request-id'], 'bad-address');
    });

    it('answers 404 and 405 before 403 insufficient_scope', async () => {
      const token = await h.token(h.org.id, { scopes: ['read'] });
      assertStatus(await h.request('PATCH', 'users', undefined, { token }), 405);
      assertStatus(await h.post('nothing-here', { email: newEmail() }, { token }), 404);
    });

    it('accepts a trailing slash', async () => {
      const id = await h.create('users/', { email: newEmail() });
      assertStatus(await h.get('users/'), 200);
      assertStatus(await h.get(`users/${id}/`), 200);
      assertStatus(await h.put(`users/${id}/`, { firstName: 'Slash' }), 204);
      assertStatus(await h.delete(`users/${id}/`), 204);
    });

    it('serves the /dc/api/v5 alias, with Location under the alias', async () => {
      const email = newEmail();
      const created = await h.post('/dc/api/v5/users', { email });
      assertStatus(created, 201);
      const location = String(created.headers.location);
      assert.match(location, /^http:\/\/localhost(:\d+)?\/dc\/api\/v5\/users\/[0-9a-f]{32}$/);
      const read = await h.get(new URL(location).pathname);
      assertStatus(read, 200);
      assert.equal(read.json().email, email);
      const list = await h.get('/dc/api/v5/users', { query: { email } });
      assert.deepEqual(
        list.json().results.map((user: { id: string }) => user.id),
        [read.json().id],
      );
    });

    it('answers a create with 201, an absolute Location under /api/v5 and an empty body', async () => {
      const created = await h.post('users', { email: newEmail() });
      assertStatus(created, 201);
      assert.match(String(created.headers.location), /^http:\/\/localhost(:\d+)?\/api\/v5\/users\/[0-9a-f]{32}$/);
      assert.equal(created.body, '');
      assert.equal(created.headers['content-length'], '0');
    });
  });

  describe('content negotiation', () => {
    it('answers 406 when Accept excludes JSON', async () => {
      for (const accept of ['text/html', 'application/xml', 'application/json;q=0']) {
        assertOneError(await h.get('users', { headers: { accept } }), 406);
      }
    });

    it('accepts requests whose Accept allows JSON', async () => {
      for (const accept of ['*/*', 'application/*', 'application/json', 'application/json;q=0.5, text/html', 'text/html, */*;q=0.1']) {
        assertStatus(await h.get('users', { headers: { accept } }), 200);
      }
      assertStatus(await h.get('users'), 200);
    });

    it('answers 406 before 415 and 400', async () => {
      const accept = 'text/html';
      assertOneError(await h.post('users', 'x', { headers: { accept, 'content-type': 'text/plain' } }), 406);
      assertOneError(await h.post('users', '{not json', { headers: { accept } }), 406);
    });

    it('answers 415 before 400', async () => {
      assertStatus(await h.post('users', '{not json', { headers: { 'content-type': 'text/plain' } }), 415);
    });

    it('answers 404 before 406 for an unknown path', async () => {
      const response = await h.get('nothing-here', { headers: { accept: 'text/html' } });
      assertStatus(response, 404);
      assert.deepEqual(response.json(), NO_SUCH_ADDRESS);
    });

    it('answers 415 for a body that is not JSON', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const response = await h.post('users', 'email=a@example.com', { headers: { 'content-type': contentType } });
        assertStatus(response, 415);
        assert.deepEqual(response.json(), UNSUPPORTED_MEDIA_TYPE);
      }
    });

    it('answers 415 for a body without a Content-Type', async () => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/v5/users',
        headers: { authorization: `Bearer ${h.org.token}` },
        payload: Buffer.from(JSON.stringify({ email: newEmail() })),
      });
      assertStatus(response, 415);
      assert.deepEqual(response.json(), UNSUPPORTED_MEDIA_TYPE);
    });

    it('answers 415 in the same words for a Content-Type that lists several types', async () => {
      const response = await h.post('users', { email: newEmail() }, { headers: { 'content-type': 'application/json, text/plain' } });
      assertStatus(response, 415);
      assert.deepEqual(response.json(), UNSUPPORTED_MEDIA_TYPE);
    });

    it('accepts JSON with a charset parameter', async () => {
      const response = await h.post('users', { email: newEmail() }, { headers: { 'content-type': 'application/json; charset=utf-8' } });
      assertStatus(response, 201);
    });

    it('accepts a DELETE with a JSON Content-Type and no body', async () => {
      const id = await h.create('users', { email: newEmail() });
      for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'application/json', 'content-length': '0' }] as Record<
        string,
        string
      >[]) {
        const missing = await h.delete(`users/${UNKNOWN_ID}`, { headers });
        assertStatus(missing, 404);
        assert.deepEqual(missing.json(), NO_SUCH_ID);
      }
      assertStatus(await h.delete(`users/${id}`, { headers: { 'content-type': 'application/json', 'content-length': '0' } }), 204);
    });

    it('accepts a DELETE without a body whatever its Content-Type', async () => {
      const id = await h.create('users', { email: newEmail() });
      assertStatus(await h.delete(`users/${UNKNOWN_ID}`, { headers: { 'content-type': 'text/plain' } }), 404);
      assertStatus(await h.delete(`users/${id}`, { headers: { 'content-type': 'text/plain', 'content-length': '0' } }), 204);
    });

    it('accepts a GET with a Content-Type and no body', async () => {
      for (const contentType of ['application/json', 'text/plain']) {
        assertStatus(await h.get('users', { headers: { 'content-type': contentType, 'content-length': '0' } }), 200);
      }
    });
  });

  describe('request bodies', () => {
    it('answers 400 with message and errors for malformed JSON', async () => {
      for (const payload of ['{"email":', '{email: "a@example.com"}', '{"email":"a@example.com",}', 'nul']) {
        assertBadRequest(await h.post('users', payload), 'The request body is not valid JSON');
      }
    });

    it('answers 400 for a body that is not a JSON object', async () => {
      for (const payload of ['[]', '[{"email":"a@example.com"}]', '"a@example.com"', '42', 'true', 'null']) {
        assertBadRequest(await h.post('users', payload), 'The request body must be a JSON object');
      }
    });

    it('answers 400 for a POST without a body', async () => {
      assertStatus(await h.post('users', ''), 400);
      const response = await h.request('POST', 'users');
      assertStatus(response, 400);
    });

    it('names every unknown property, together with the other field errors', async () => {
      assertFieldErrors(await h.post('users', { email: newEmail(), x: 1, nickname: 'Al' }), {
        x: 'unknown property',
        nickname: 'unknown property',
      });
      assertFieldErrors(await h.post('users', { email: 'not-an-email', x: 1 }), {
        email: 'Invalid email address',
        x: 'unknown property',
      });
    });

    it('names unknown properties that share their name with a member of every object, or have no name', async () => {
      assertFieldErrors(await h.post('users', { email: newEmail(), toString: 1, valueOf: 2, hasOwnProperty: 3 }), {
        toString: 'unknown property',
        valueOf: 'unknown property',
        hasOwnProperty: 'unknown property',
      });
      const unnamed = await h.post('users', { email: newEmail(), '': 1 });
      assertFieldErrors(unnamed, { '': 'unknown property' });
    });

    it('answers 400, not a crash, for a deeply nested body, and ignores one in a read-only property', async () => {
      const nested = '['.repeat(20000) + ']'.repeat(20000);
      const response = await h.post('users', `{"email":"${newEmail()}","tags":${nested}}`);
      assertStatus(response, 400);
      assert.deepEqual(Object.keys(response.json().fieldErrors), ['tags[0]']);
      assertStatus(await h.post('users', `{"email":"${newEmail()}","id":${nested}}`), 201);
    });

    it('rejects __proto__, constructor and prototype keys and creates nothing', async () => {
      const email = newEmail();
      for (const [key, payload] of [
        ['__proto__', `{"email":"${email}","__proto__":{"admin":true}}`],
        ['__proto__', `{"email":"${email}","\\u005f_proto__":{"admin":true}}`],
        ['constructor', `{"email":"${email}","constructor":1}`],
        ['prototype', `{"email":"${email}","constructor":{"prototype":{"admin":true}}}`],
        ['prototype', `{"email":"${email}","prototype":{"admin":true}}`],
        ['__proto__', `{"email":"${email}","tags":[{"__proto__":{"x":1}}]}`],
      ]) {
        assertBadRequest(await h.post('users', payload!), `The property name "${key}" is not allowed`);
      }
      assert.deepEqual((await h.get('users', { query: { email } })).json().results, []);
      assert.equal(({} as Record<string, unknown>).admin, undefined);
    });

    it('ignores read-only properties so a client can PUT back what it read', async () => {
      const id = await h.create('users', { email: newEmail(), firstName: 'Ada' });
      const read = (await h.get(`users/${id}`)).json();
      assertStatus(await h.put(`users/${id}`, { ...read, id: UNKNOWN_ID, createdDate: '2000-01-01T00:00:00Z' }), 204);
      assert.deepEqual((await h.get(`users/${id}`)).json(), read);
    });

    it('refuses a body that is not UTF-8, naming the texts that hold the invalid bytes, and creates nothing', async () => {
      const email = newEmail();
      const body = Buffer.concat([
        Buffer.from(`{"email":"${email}","firstName":"a`),
        Buffer.from([0xff]),
        Buffer.from('b","tags":["ok","'),
        Buffer.from([0xc3]),
        Buffer.from('"]}'),
      ]);
      const invalid = 'must be valid UTF-8';
      assertFieldErrors(await h.post('users', body), { firstName: invalid, 'tags[1]': invalid });
      assertBadRequest(await h.post('users', Buffer.from([0x7b, 0xff, 0x7d])), 'The request body is not valid UTF-8');
      assert.deepEqual((await h.get('users', { query: { email } })).json().results, []);
      assertStatus(await h.post('users', Buffer.from(`{"email":"${email}","firstName":"J\u00fcrgen"}`)), 201);
      assert.equal((await h.get('users', { query: { email } })).json().results[0].firstName, 'J\u00fcrgen');
    });

    it('answers 415 for a compressed body, and accepts Content-Encoding: identity', async () => {
      const email = newEmail();
      for (const encoding of ['gzip', 'br', 'deflate', 'x-custom']) {
        const response = await h.post('users', { email }, { headers: { 'content-encoding': encoding } });
        assertOneError(response, 415);
        assert.deepEqual(response.json().errors, ['A request body must be sent without Content-Encoding: compressed bodies are not supported']);
      }
      assertStatus(await h.post('users', { email }, { headers: { 'content-encoding': 'identity' } }), 201);
    });

    it('answers a GET sent with a compressed body as any GET: its body is never read, whatever its encoding', async () => {
      const response = await h.request('GET', 'users', Buffer.from([0x1f, 0x8b, 0x08, 0x00]), { headers: { 'content-encoding': 'gzip' } });
      assertStatus(response, 200);
      assert.ok(Array.isArray(response.json().results));
    });

    it('refuses text with an unpaired surrogate, which neither engine would store as sent, and creates nothing', async () => {
      const email = newEmail();
      const response = await h.post('users', `{"email":"${email}","firstName":"a\\ud800b","tags":["ok","\\udfff"]}`);
      const surrogate = 'must not contain an unpaired surrogate (\\ud800 to \\udfff), which is not Unicode text';
      assertFieldErrors(response, { firstName: surrogate, 'tags[1]': surrogate });
      assert.deepEqual((await h.get('users', { query: { email } })).json().results, []);
      assertStatus(await h.post('users', { email, firstName: 'a\u{1F600}b' }), 201);
    });

    it('ignores read-only properties whatever they hold, NUL characters included', async () => {
      const id = await h.create('users', { email: newEmail(), firstName: 'Ada' });
      const read = (await h.get(`users/${id}`)).json();
      assertStatus(await h.put(`users/${id}`, { ...read, id: 'a\u0000b', createdDate: ['\u0000'] }), 204);
      assert.deepEqual((await h.get(`users/${id}`)).json(), read);
      const nul = await h.put(`users/${id}`, { firstName: 'A\u0000da' });
      assertFieldErrors(nul, { firstName: 'must not contain the NUL character (\\u0000)' });
    });
  });

  describe('query strings', () => {
    it('names unknown query parameters', async () => {
      assertFieldErrors(await h.get('users', { query: { foo: '1' } }), { foo: 'unknown query parameter' });
      assertFieldErrors(await h.get(`users/${UNKNOWN_ID}`, { query: { foo: '1' } }), { foo: 'unknown query parameter' });
    });

    it('names query parameters that share their name with a member of every object, or have no name', async () => {
      for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
        assertFieldErrors(await h.get(`users?${name}=1`), { [name]: 'unknown query parameter' });
      }
      assertFieldErrors(await h.get('users?=1'), { '': 'unknown query parameter' });
    });

    it('says that a parameter given more than once must be given once, instead of misreading it', async () => {
      for (const query of ['limit=5&limit=6', 'email=a@example.com&email=b@example.com', 'createdDate=2013&createdDate=2014']) {
        const name = query.slice(0, query.indexOf('='));
        assertFieldErrors(await h.get(`users?${query}`), { [name]: 'must be given only once' });
      }
    });

    it('validates limit and offset', async () => {
      for (const limit of ['0', '101', '-1', '1.5', 'abc', '']) {
        const response = await h.get('users', { query: { limit } });
        assertStatus(response, 400);
        assert.deepEqual(Object.keys(response.json().fieldErrors), ['limit'], `limit=${limit}`);
      }
      for (const offset of ['-1', '1.5', 'abc', '']) {
        const response = await h.get('users', { query: { offset } });
        assertStatus(response, 400);
        assert.deepEqual(Object.keys(response.json().fieldErrors), ['offset'], `offset=${offset}`);
      }
      assert.deepEqual(Object.keys((await h.get('users', { query: { limit: '0', offset: '-1' } })).json().fieldErrors).sort(), ['limit', 'offset']);
      for (const [limit, offset] of [
        ['1', '0'],
        ['100', '5'],
        ['15', '1000000'],
      ]) {
        assertStatus(await h.get('users', { query: { limit: limit!, offset: offset! } }), 200);
      }
    });
  });

  describe('malformed HTTP', () => {
    let port: number | undefined;
    /** The app on a real socket, for requests that cannot be injected. */
    const listening = async () => {
      if (port === undefined) {
        await h.app.listen({ host: '127.0.0.1', port: 0 });
        port = (h.app.server.address() as AddressInfo).port;
      }
      return port;
    };

    /** Sends `request` raw; the answer must be one JSON refusal with a request id, after which the server closes. */
    const refusal = async (request: string) => {
      const [lines, body] = (await exchange(await listening(), request)).split('\r\n\r\n') as [string, string];
      const head = `${lines}\r\n`;
      assert.match(head, /\r\nX-Request-Id: [0-9a-f]{32}\r\n/i);
      assert.match(head, /\r\nContent-Type: application\/json/i);
      assert.match(head, /\r\nConnection: close\r\n/i);
      return { status: Number(head.slice(9, 12)), head, body: JSON.parse(body) };
    };

    it('answers what the HTTP parser refuses in the v5 shape, with a request id', async () => {
      for (const request of ['FOO /api/v5/users HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /api/v5/users HTTP/1.1\r\nBad Header\r\n\r\n']) {
        const answer = await refusal(request);
        assert.equal(answer.status, 400);
        assert.deepEqual(answer.body, { message: 'The request is not valid HTTP', errors: ['The request is not valid HTTP'] });
      }
    });

    it('answers an HTTP/1.1 request without Host with 400, and serves HTTP/1.0 without one', async () => {
      const answer = await refusal(`GET /api/v5/users HTTP/1.1\r\nAuthorization: Bearer ${h.org.token}\r\n\r\n`);
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.body.errors, ['An HTTP/1.1 request must carry a Host header']);
      const old = await exchange(await listening(), `GET /api/v5/users HTTP/1.0\r\nAuthorization: Bearer ${h.org.token}\r\n\r\n`);
      assert.match(old, /^HTTP\/1\.1 200 /);
    });

    it('answers an unknown expectation with 417', async () => {
      const answer = await refusal('POST /api/v5/users HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}');
      assert.equal(answer.status, 417);
      assert.deepEqual(answer.body, { errors: ['The only expectation supported is Expect: 100-continue'] });
    });

    it("answers Expect: 100-continue with 413 at once, without 100 Continue, when Content-Length is over the route's limit", async () => {
      const head = (path: string, type: string, length: number, token = `Authorization: Bearer ${h.org.token}\r\n`) =>
        `POST ${path} HTTP/1.1\r\nHost: x\r\n${token}Content-Type: ${type}\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;
      const over = await stepwise(await listening());
      over.send(head('/api/v5/users', 'application/json', APP_BODY_LIMIT + 1));
      const refused = await over.answer();
      assert.match(refused, /^HTTP\/1\.1 413 /);
      assert.match(refused, /\r\nConnection: close\r\n/i);
      assert.deepEqual(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4)), {
        errors: [`The request body exceeds the limit of ${APP_BODY_LIMIT} bytes`],
      });
      await over.closed();

      // Refused before the body is read: no 100 Continue either.
      const anonymous = await stepwise(await listening());
      anonymous.send(head('/api/v5/users', 'application/json', 20, ''));
      assert.match(await anonymous.answer(), /^HTTP\/1\.1 401 /);
      await anonymous.closed();

      const body = JSON.stringify({ email: newEmail() });
      const within = await stepwise(await listening());
      within.send(head('/api/v5/users', 'application/json', Buffer.byteLength(body)));
      assert.equal(await within.until((received) => received.includes('\r\n\r\n')), 'HTTP/1.1 100 Continue\r\n\r\n');
      within.send(body);
      assert.match(await within.answer(), /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
      within.destroy();

      // An import's limit is its own: 64 MiB.
      const file = await stepwise(await listening());
      file.send(head('/api/v5/imports', 'text/csv', 2 * 1024 * 1024));
      assert.equal(await file.until((received) => received.includes('\r\n\r\n')), 'HTTP/1.1 100 Continue\r\n\r\n');
      file.destroy();
    });

    it('answers CONNECT with 405 and Allow', async () => {
      const answer = await refusal('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
      assert.equal(answer.status, 405);
      assert.match(answer.head, /\r\nAllow: DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT\r\n/i);
      assert.deepEqual(answer.body.errors, ['Method CONNECT is not allowed here; allowed: DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT']);
    });

    it('answers headers or an address over the size limit with 431', async () => {
      const long = 'a'.repeat(20_000);
      for (const request of [
        `GET /api/v5/users HTTP/1.1\r\nHost: x\r\nX-Long: ${long}\r\n\r\n`,
        `GET /api/v5/users?q=${long} HTTP/1.1\r\nHost: x\r\n\r\n`,
      ]) {
        const answer = await refusal(request);
        assert.equal(answer.status, 431);
        assert.deepEqual(answer.body, { errors: ['The request headers are too large'] });
      }
    });
  });

  describe('X-Request-Id', () => {
    it('is on every response', async () => {
      const responses = [
        await h.get('users'),
        await h.post('users', { email: newEmail() }),
        await h.post('users', { nope: true }),
        await h.get('users', { token: null }),
        await h.get(`users/${UNKNOWN_ID}`),
        await h.get('nothing-here'),
        await h.request('PATCH', 'users'),
        await h.get('users', { headers: { accept: 'text/html' } }),
        await h.get('/healthz'),
      ];
      for (const response of responses) assert.match(String(response.headers['x-request-id']), GENERATED_REQUEST_ID);
      assert.equal(new Set(responses.map((response) => response.headers['x-request-id'])).size, responses.length);
    });

    it("echoes a client's valid id", async () => {
      for (const id of ['abc-123', 'A.b_c:d-E', 'x'.repeat(64)]) {
        assert.equal((await h.get('users', { headers: { 'x-request-id': id } })).headers['x-request-id'], id);
        assert.equal((await h.get('nothing-here', { headers: { 'x-request-id': id } })).headers['x-request-id'], id);
      }
    });

    it('replaces an invalid client id', async () => {
      for (const id of ['x'.repeat(65), 'has space', 'semi;colon', '<script>', 'ünïcode']) {
        const response = await h.get('users', { headers: { 'x-request-id': id } });
        assert.match(String(response.headers['x-request-id']), GENERATED_REQUEST_ID, id);
      }
    });
  });

  describe('tenancy', () => {
    it('gives another organization 404 for every user of the first and never lists them', async () => {
      const ids = [
        await h.create('users', { email: newEmail(), username: 'first-org-user' }),
        await h.create('users', { email: newEmail(), tags: ['shared'] }),
      ];
      const other = await h.createOrganization('Other organization');
      for (const id of ids) {
        for (const response of [
          await h.get(`users/${id}`, { token: other.token }),
          await h.put(`users/${id}`, { firstName: 'Intruder' }, { token: other.token }),
          await h.delete(`users/${id}`, { token: other.token }),
          await h.get(`/dc/api/v5/users/${id}`, { token: other.token }),
        ]) {
          assertStatus(response, 404);
          assert.deepEqual(response.json(), NO_SUCH_ID);
        }
        const own = await h.get(`users/${id}`);
        assertStatus(own, 200);
        assert.equal(own.json().firstName, undefined);
      }
      assert.deepEqual((await h.get('users', { token: other.token, query: { limit: '100' } })).json(), { results: [] });
      assert.deepEqual((await h.get('users', { token: other.token, query: { tags: 'shared' } })).json(), { results: [] });
      const mine = (await h.get('users', { query: { limit: '100' } })).json().results.map((user: { id: string }) => user.id);
      for (const id of ids) assert.ok(mine.includes(id));
    });
  });

  describe('service endpoints', () => {
    it('answers /healthz and /readyz without a token', async () => {
      for (const path of ['/healthz', '/readyz', '/healthz/']) {
        const response = await h.get(path, { token: null });
        assertStatus(response, 200);
        assert.deepEqual(response.json(), { status: 'ok' });
      }
    });

    it('serves an OpenAPI 3.1 document without a token', async () => {
      const response = await h.get('openapi.json', { token: null });
      assertStatus(response, 200);
      const document = response.json();
      assert.match(document.openapi, /^3\.1/);
      const paths = Object.keys(document.paths);
      assert.ok(paths.includes('/users'), paths.join(' '));
      assert.ok(paths.includes('/users/{id}'), paths.join(' '));
      assert.deepEqual(
        paths.filter((path) => path.includes('/dc/') || path.includes('openapi') || path.includes('healthz')),
        [],
      );
      assert.ok(document.paths['/users'].get.responses['200'].content['application/json'].schema);
      assert.ok(document.paths['/users/{id}'].get.responses['200'].content['application/json'].schema);
      assert.ok(document.paths['/users'].post.requestBody.content['application/json'].schema);
    });

    it('serves the OpenAPI document under the alias too', async () => {
      assertStatus(await h.get('/dc/api/v5/openapi.json', { token: null }), 200);
    });
  });
});

forEachEngine(
  'body limit',
  (h) => {
    it('answers 413 for a body over the limit, and accepts one within it', async () => {
      const email = newEmail();
      assertOneError(await h.post('users', { email, firstName: 'x'.repeat(BODY_LIMIT) }), 413);
      assert.deepEqual((await h.get('users', { query: { email } })).json().results, []);
      const tags = Array.from({ length: 10 }, (_, i) => `${'t'.repeat(BODY_LIMIT / 20)}${i}`);
      assertStatus(await h.post('users', { email, tags }), 201);
    });

    it('answers 401 before 413', async () => {
      assertStatus(await h.post('users', { email: newEmail(), firstName: 'x'.repeat(BODY_LIMIT) }, { token: null }), 401);
    });
  },
  { bodyLimit: BODY_LIMIT },
);

forEachEngine('default body limit', (h) => {
  it('answers 413 for a body over 1 MB', async () => {
    assertOneError(await h.post('users', { email: newEmail(), firstName: 'x'.repeat(1024 * 1024) }), 413);
  });
});

forEachEngine('internal errors', (h) => {
  it('answers 500 with a bare body and the request id, and logs the failure under that id', async () => {
    await h.database.close();
    const response = await h.get('users', { headers: { 'x-request-id': 'failing-request' } });
    assertStatus(response, 500);
    assert.deepEqual(response.json(), { errors: ['Internal server error'] });
    assert.equal(response.headers['x-request-id'], 'failing-request');
    const failures = h.logs.map((line) => JSON.parse(line)).filter((entry) => entry.level >= 50);
    assert.ok(failures.length > 0, 'an error is logged');
    for (const entry of failures) {
      assert.equal(entry.requestId, 'failing-request');
      assert.equal(typeof entry.err?.stack, 'string');
    }
  });

  it('answers /readyz with 503 while the database is unreachable', async () => {
    const response = await h.get('/readyz', { token: null });
    assertOneError(response, 503);
  });
});
