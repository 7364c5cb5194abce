import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachEngine, type Response } from '../helpers/harness.js';

const PASSWORD = 'Sesame-4242';
const NEW_PASSWORD = 'Other-password-77';
const INVALID_TOKEN = 'tpa_thisTokenWasNeverIssued0123456789abcdef';
const BASIC_CREDENTIALS = btoa('admin:basic-secret-99');

forEachEngine('logging', (h) => {
  const responses: Response[] = [];
  let secrets: string[];

  before(async () => {
    const send = async (response: Promise<Response>) => responses.push(await response);
    const readOnly = await h.token(h.org.id, { scopes: ['read'] });
    secrets = [h.org.token, readOnly, INVALID_TOKEN, BASIC_CREDENTIALS, PASSWORD, NEW_PASSWORD];

    await send(h.get('users'));
    await send(h.get('users', { token: readOnly }));
    await send(h.post('users', { email: 'read-only@example.com', password: PASSWORD }, { token: readOnly }));
    await send(h.get('users', { token: INVALID_TOKEN }));
    await send(h.get('users', { token: null, headers: { authorization: `Basic ${BASIC_CREDENTIALS}` } }));
    await send(h.get('users', { token: null, query: { access_token: h.org.token } }));
    await send(h.get('users', { query: { access_token: h.org.token } }));
    await send(h.get('nothing-here', { query: { access_token: h.org.token, password: PASSWORD } }));
    await send(h.post('users', { email: 'logged@example.com', password: PASSWORD }));
    const id = String(responses.at(-1)!.headers.location).split('/').pop()!;
    await send(h.put(`users/${id}`, { password: NEW_PASSWORD }));
    await send(h.put(`users/${id}`, { password: 'short' }));
    await send(h.post('users', `{"email":"broken@example.com","password":"${PASSWORD}",}`));
    await send(h.post('users', { email: 'not-an-email', password: PASSWORD, unknown: NEW_PASSWORD }));
  });

  it('sent every request it meant to', () => {
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      [200, 200, 403, 401, 401, 401, 400, 404, 201, 204, 400, 400, 400],
    );
  });

  it('logs every request under its request id', () => {
    const logged = new Set(h.logs.map((line) => JSON.parse(line).requestId));
    for (const response of responses) assert.ok(logged.has(response.headers['x-request-id']), String(response.headers['x-request-id']));
  });

  it('logs one line per request, on completion, with its method, URL, status and time', () => {
    for (const response of responses) {
      const lines = h.logs.map((line) => JSON.parse(line)).filter((entry) => entry.requestId === response.headers['x-request-id']);
      const completion = lines.filter((entry) => entry.msg === 'request completed');
      assert.equal(completion.length, 1, JSON.stringify(lines));
      assert.equal(lines.filter((entry) => entry.msg === 'incoming request').length, 0);
      assert.equal(completion[0].res.statusCode, response.statusCode);
      assert.equal(typeof completion[0].req.method, 'string');
      assert.match(completion[0].req.url, /^\//);
      assert.equal(typeof completion[0].responseTime, 'number');
    }
  });

  it('never logs a token, a password or credentials', () => {
    const text = h.logs.join('');
    assert.ok(text.length > 0);
    for (const secret of secrets) assert.equal(text.includes(secret), false, `the log holds ${secret}`);
  });

  it('keeps the query string readable with the secret values masked', () => {
    const urls = h.logs.map((line) => JSON.parse(line).req?.url).filter(Boolean);
    assert.ok(urls.includes('/api/v5/users?access_token=[redacted]'), urls.join(' '));
  });
});
