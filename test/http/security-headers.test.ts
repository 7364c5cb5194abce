import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { listenTls, type RunningServer } from '../../src/server/listener.js';
import { ensureSelfSignedCertificate } from '../../src/server/tls-certificate.js';
import { browserSkip, launchBrowser } from '../helpers/browser.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { forEachEngine, type Response } from '../helpers/harness.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

function assertSecurityHeaders(response: Response, label: string): void {
  assert.match(String(response.headers['strict-transport-security']), /^max-age=\d{7,}/, label);
  assert.equal(response.headers['x-content-type-options'], 'nosniff', label);
}

/** The policy's sources for one directive (falling back to default-src, as browsers do). */
function sources(policy: string, directive: string): string[] {
  const directives = new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...values]) => [name!.toLowerCase(), values]),
  );
  return directives.get(directive) ?? directives.get('default-src') ?? [];
}

function allowsInline(policy: string, directive: string, content: string): boolean {
  const allowed = sources(policy, directive);
  const hash = `'sha256-${createHash('sha256').update(content).digest('base64')}'`;
  const hashesOrNonces = allowed.some((source) => /^'(sha\d+|nonce)-/.test(source));
  return allowed.includes(hash) || (allowed.includes("'unsafe-inline'") && !hashesOrNonces);
}

forEachEngine('security headers', (h) => {
  it('sends HSTS, nosniff, a CSP that allows nothing and no-store on every API answer, refusals included', async () => {
    const readOnly = await h.token(h.org.id, { scopes: ['read'] });
    const answers: Record<string, Response> = {
      'GET 200': await h.get('users'),
      'POST 201': await h.post('users', { email: 'headers@example.com' }),
      'POST 400': await h.post('users', { email: 'not an email' }),
      'POST 403': await h.post('users', { email: 'scope@example.com' }, { token: readOnly }),
      'GET 401': await h.get('users', { token: null }),
      'GET 401 invalid token': await h.get('users', { token: 'tpa_nope' }),
      'GET 404': await h.get('users/00000000000000000000000000000000'),
      'GET 404 unknown address': await h.get('/nowhere', { token: null }),
      'GET 406': await h.get('users', { headers: { accept: 'text/html' } }),
      'SCIM 401': await h.get('/scim/v2/Users', { token: null }),
      'POST /oauth/token 401': await h.request('POST', '/oauth/token', 'grant_type=password', {
        token: null,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      'GET /healthz': await h.get('/healthz', { token: null }),
      'GET openapi.json': await h.get('openapi.json', { token: null }),
    };
    for (const [label, response] of Object.entries(answers)) {
      assertSecurityHeaders(response, label);
      assert.equal(response.headers['cache-control'], 'no-store', label);
      assert.equal(response.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'", label);
      assert.ok(response.headers['x-frame-options'], label);
    }
    assert.deepEqual(
      Object.fromEntries(Object.entries(answers).map(([label, response]) => [label, response.statusCode])),
      Object.fromEntries(Object.keys(answers).map((label) => [label, Number(/\d{3}/.exec(label)?.[0] ?? 200)])),
    );
  });

  it('gives /docs a policy that allows its own scripts and styles, and nothing inline it does not name', async () => {
    const page = await h.get('/docs/', { token: null, headers: { accept: 'text/html' } });
    assert.equal(page.statusCode, 200);
    assertSecurityHeaders(page, '/docs/');
    const policy = String(page.headers['content-security-policy']);
    assert.notEqual(policy, "default-src 'none';frame-ancestors 'none'");
    for (const directive of ['script-src', 'style-src']) assert.ok(sources(policy, directive).includes("'self'"), directive);
    for (const unsafe of ["'unsafe-eval'", "'unsafe-inline'"]) assert.ok(!sources(policy, 'script-src').includes(unsafe), unsafe);

    const inlineScripts = [...page.body.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map((match) => match[1]!);
    const inlineStyles = [...page.body.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/gi)].map((match) => match[1]!);
    for (const script of inlineScripts) assert.ok(allowsInline(policy, 'script-src', script), `inline script not allowed: ${script.slice(0, 80)}`);
    for (const style of inlineStyles) assert.ok(allowsInline(policy, 'style-src', style), `inline style not allowed: ${style.slice(0, 80)}`);
    assert.doesNotMatch(page.body, /\son[a-z]+=/i, 'an inline event handler');
    if (/\sstyle=/i.test(page.body)) assert.ok(sources(policy, 'style-src-attr').includes("'unsafe-inline'"), 'a style attribute');

    for (const script of [...page.body.matchAll(/<script[^>]*\ssrc="([^"]+)"/gi)].map((match) => match[1]!)) {
      const asset = await h.get(`/docs/${script.replace(/^\.\//, '')}`, { token: null });
      assert.equal(asset.statusCode, 200, script);
      assertSecurityHeaders(asset, script);
    }
  });
});

describe('the /docs page in a browser', { skip: browserSkip }, () => {
  let database: TestDatabase;
  let server: RunningServer;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'training-api-docs-'));
    database = await createTestDatabase('sqlite');
    const tls = await ensureSelfSignedCertificate(dir);
    const app = await buildApp({ passwordPolicy: DEFAULT_PASSWORD_POLICY, db: database.db, https: { key: tls.key, cert: tls.cert } });
    server = await listenTls(app, { host: '127.0.0.1', port: 0 });
  });

  after(async () => {
    await server?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('renders the reference without a Content Security Policy violation', async () => {
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      const complaints: string[] = [];
      page.on('console', (message) => {
        if (/content security policy/i.test(message.text())) complaints.push(message.text());
      });
      // Runs before the page's own scripts, outside its policy: reports what the policy blocked.
      await page.addInitScript(
        "document.addEventListener('securitypolicyviolation', (event) => " +
          'console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`))',
      );
      await page.goto(`https://127.0.0.1:${server.port}/docs/`);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      await page.waitForLoadState('networkidle');
      assert.deepEqual(complaints, []);
      assert.match((await page.textContent('.info .title')) ?? '', /Training Platform REST API/);
    } finally {
      await browser.close();
    }
  });
});
