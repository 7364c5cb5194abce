import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import type { Engine } from '../../src/db/database.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { axeViolations, fileBrowser, watchPage, type AxeViolation } from './browser.js';
import { CONSOLE_PASSWORD } from './console-sign-in.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { createdId, ServerProcess, type Reply } from './server-process.js';

/** The organization administrator the console is walked as. */
export const ADMIN_EMAIL = 'admin@example.com';

/**
 * The console in Chromium on a real server process over HTTPS: a database of its own with one
 * organization, a token of the API to set data up, and its administrator signed in through the real
 * sign-in form. Whatever the page does wrong is collected: errors of its console and script, and
 * answers of 400 or more (`problems`); what its script asked before a form was sent (`questions`,
 * each accepted); and axe-core's findings of every page checked (`violations`).
 */
export class ConsoleInBrowser {
  database!: TestDatabase;
  server!: ServerProcess;
  orgId!: string;
  /** A token of the API of the organization, for the set-up (`api`). */
  token!: string;
  origin!: string;
  page!: Page;
  readonly problems: string[] = [];
  readonly questions: string[] = [];
  readonly violations: Record<string, AxeViolation[]> = {};
  private context?: BrowserContext;

  constructor(readonly engine: Engine) {}

  /** The database, the organization, the server (with `settings` in its environment) and the administrator. */
  async start(settings: Record<string, string> = {}): Promise<void> {
    this.database = await createTestDatabase(this.engine);
    this.orgId = (await organizationsRepository(this.database.db).create('Northwind Training')).id;
    ({ token: this.token } = await tokensService(this.database.db).create(this.orgId, { name: 'Set-up' }));
    this.server = await ServerProcess.start({ DATABASE_URL: this.database.url, ...settings });
    this.origin = `https://localhost:${this.server.port}`;
    await this.person({ email: ADMIN_EMAIL, firstName: 'Ada', accountType: 'organizationAdministrator' });
  }

  /** A request of the API with the organization's token, which must succeed. */
  async api(method: string, path: string, body?: unknown): Promise<Reply> {
    const reply = await this.server.request(method, path, { token: this.token, ...(body === undefined ? {} : { body }) });
    assert.ok(reply.status < 300, `${method} ${path}: ${reply.status} ${reply.body}`);
    return reply;
  }

  /** A person who can sign in (the console's password, the standard agreement accepted); their id. */
  async person(properties: Record<string, unknown>): Promise<string> {
    const id = createdId(await this.api('POST', 'users', { password: CONSOLE_PASSWORD, ...properties }))!;
    await this.api('PUT', `users/${id}/agreements/standard`, { agreed: true });
    return id;
  }

  /** Opens a context of the file's Chromium and signs the administrator in, on the console's first page. */
  async signIn(): Promise<void> {
    this.context = await (await fileBrowser()).newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = (this.page = await this.context.newPage());
    watchPage(page, this.problems);
    page.on('dialog', (dialog) => {
      this.questions.push(dialog.message());
      void dialog.accept();
    });
    const consoleUrl = `${this.origin}/o/${this.orgId}/console`;
    await page.goto(`${this.origin}/o/${this.orgId}/sign-in?next=${encodeURIComponent(`/o/${this.orgId}/console`)}`);
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(consoleUrl);
  }

  /** Runs axe on the page as it stands, under `name`. */
  async checked(name: string): Promise<void> {
    this.violations[name] = await axeViolations(this.page);
  }

  /** The text of the page's main part, spaces joined: what a person reads. */
  async text(): Promise<string> {
    return (await this.page.locator('main').innerText()).replace(/\s+/g, ' ');
  }

  /** Follows a link of the console's navigation. */
  nav(name: string): Promise<void> {
    return this.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name }).click();
  }

  /** The pages checked with axe's findings, for a test to assert there are none. */
  violationsFound(): [string, AxeViolation[]][] {
    return Object.entries(this.violations).filter(([, found]) => found.length > 0);
  }

  async stop(): Promise<void> {
    await this.context?.close();
    await this.server?.destroy();
    await this.database?.drop();
  }
}
