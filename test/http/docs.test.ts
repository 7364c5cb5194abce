import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine } from '../helpers/harness.js';

forEachEngine('reference page', (h) => {
  it('serves the interactive reference to a browser, without a token', async () => {
    const page = await h.get('/docs/', { token: null, headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /swagger-ui/i);
    assert.ok(page.headers['x-request-id']);
  });

  it('shows the same document the API publishes', async () => {
    const shown = await h.get('/docs/json', { token: null });
    const published = await h.get('openapi.json', { token: null });
    assert.equal(shown.statusCode, 200);
    assert.deepEqual(shown.json().paths, published.json().paths);
  });
});
