import assert from 'node:assert/strict';
import { it } from 'node:test';
import { clientsService } from '../../src/oauth/clients.service.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { forEachEngine, type Harness, type Response } from '../helpers/harness.js';

/** Every log line of the request that got `response`. */
function linesOf(h: Harness, response: Response): Record<string, unknown>[] {
  return h.logs.map((line) => JSON.parse(line)).filter((entry) => entry.requestId === response.headers['x-request-id']);
}

function completionOf(h: Harness, response: Response): Record<string, unknown> {
  const line = linesOf(h, response).find((entry) => entry.msg === 'request completed');
  assert.ok(line, `no completion line for ${String(response.headers['x-request-id'])}`);
  return line;
}

forEachEngine('audit trail', (h) => {
  it("names the organization and the token on every write's log lines, never the secret", async () => {
    const [token] = await tokensService(h.database.db).list(h.org.id);
    assert.ok(token);
    const tokenId = token.id;
    const created = await h.post('users', { email: 'audited@example.com', password: 'secret-77' });
    const userId = String(created.headers.location).split('/').pop()!;
    const writes = [
      created,
      await h.put(`users/${userId}`, { firstName: 'Audited' }),
      await h.post('users', { email: 'not an email' }),
      await h.delete(`users/${userId}`),
      await h.delete(`users/${userId}`),
    ];
    assert.deepEqual(
      writes.map((response) => response.statusCode),
      [201, 204, 400, 204, 404],
    );
    for (const response of writes) {
      for (const line of linesOf(h, response).filter((entry) => entry.msg !== 'incoming request')) {
        assert.equal(line.orgId, h.org.id, JSON.stringify(line));
        assert.equal(line.tokenId, tokenId, JSON.stringify(line));
      }
      assert.equal(completionOf(h, response).orgId, h.org.id);
    }
    const text = h.logs.join('');
    assert.equal(text.includes(h.org.token), false);
    assert.equal(text.includes('secret-77'), false);
  });

  it('names the OAuth client of a token it issued', async () => {
    const { info, secret } = await clientsService(h.database.db).create(h.org.id, { name: 'HR sync' });
    const issued = await h.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${btoa(`${info.id}:${secret}`)}` },
      payload: 'grant_type=client_credentials',
    });
    assert.equal(issued.statusCode, 200, issued.body);
    const accessToken = issued.json().access_token as string;
    const created = await h.post('users', { email: 'by-client@example.com' }, { token: accessToken });
    assert.equal(created.statusCode, 201);
    const line = completionOf(h, created);
    assert.equal(line.orgId, h.org.id);
    assert.equal(line.clientId, info.id);
    assert.equal(typeof line.tokenId, 'string');
    const text = h.logs.join('');
    assert.equal(text.includes(accessToken), false);
    assert.equal(text.includes(secret!), false);
  });

  it('leaves requests without a valid token unattributed', async () => {
    const refused = await h.post('users', { email: 'anonymous@example.com' }, { token: null });
    assert.equal(refused.statusCode, 401);
    assert.equal(completionOf(h, refused).orgId, undefined);
  });
});
