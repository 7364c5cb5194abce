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

  it('lets browsers keep the page, its assets and the document only while the server says they are unchanged', async () => {
    for (const path of ['/docs', '/docs/', '/docs/json']) {
      const response = await h.get(path, { token: null });
      assert.ok([200, 302].includes(response.statusCode), `${path}: ${response.statusCode}`);
      assert.equal(response.headers['cache-control'], 'no-cache', path);
    }
    const page = await h.get('/docs/', { token: null, headers: { accept: 'text/html' } });
    const asset = page.body.match(/src="\.\/([^"]+\.js)"/)?.[1];
    assert.ok(asset, 'the page loads a script of its own');
    // The static files' own: stale at once, and revalidated by their ETag.
    const script = await h.get(`/docs/${asset}`, { token: null });
    assert.equal(script.statusCode, 200);
    assert.equal(script.headers['cache-control'], 'public, max-age=0');
    assert.equal((await h.get(`/docs/${asset}`, { token: null, headers: { 'if-none-match': String(script.headers.etag) } })).statusCode, 304);
  });
});
