import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';

/** The Chromium the page tests drive: Debian's, or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The skip reason of a page test where Chromium is not installed, or false. */
export const browserSkip: string | false = existsSync(CHROMIUM)
  ? false
  : `Chromium is not installed at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH): the page tests are skipped`;

/**
 * Chromium as a quiet, headless test browser: no sandbox (containers), no GPU, nothing fetched in the
 * background. Playwright starts it with a fresh --user-data-dir of its own, removed when it closes.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

let shared: Promise<Browser> | undefined;

/**
 * The test file's one Chromium, launched at the first call and closed after the file's last test: each suite
 * (one per engine, say) opens a context of its own in it, with its own cookies and storage, instead of
 * starting a browser of its own (a second or two of a core each time).
 */
export function fileBrowser(): Promise<Browser> {
  shared ??= launchBrowser();
  return shared;
}

// Registered when a test file imports this module: a hook of the file's root, run after every test of it.
after(async () => {
  const launched = shared;
  shared = undefined;
  await (await launched?.catch(() => undefined))?.close();
});

/** axe-core's source, run in the pages it checks (by the browser's debugging protocol, which their Content Security Policy does not bind). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What `axeViolations` reports of one rule: its impact, and the nodes that break it. */
export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/**
 * The accessibility rules of WCAG 2 A and AA (and axe's best practices) that the page as it stands
 * breaks with a serious or critical impact, by axe-core. Each node is given by its selector and HTML.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(options: object): Promise<{ violations: any[] }> } }).axe;
    const results = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return results.violations.map((violation) => ({
      id: String(violation.id),
      impact: String(violation.impact),
      help: String(violation.help),
      nodes: violation.nodes.map((node: { target: unknown[]; html: string }) => `${node.target.join(' ')}: ${node.html.slice(0, 160)}`),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/**
 * Where a test's screenshot of the console goes: `dist/screenshots/` unless `DOCS_SCREENSHOTS=1`, which
 * refreshes the pictures of docs/console.md (so that a test run leaves the checkout as it was).
 */
export function consoleScreenshot(name: string): string {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  const folder = process.env.DOCS_SCREENSHOTS === '1' ? resolve(root, 'docs/console') : resolve(root, 'dist/screenshots/console');
  mkdirSync(folder, { recursive: true });
  return resolve(folder, name);
}

/**
 * Collects in `problems` whatever `page` does wrong: an error of its console (a resource that failed
 * is told by its response instead), of its script, and an answer of 400 or more (the browser's own
 * guess at /favicon.ico aside). An answer goes to the list `failed()` gives instead, when given: for
 * refusals a walk asks for on purpose.
 */
export function watchPage(page: Page, problems: string[], failed: () => string[] = () => problems): void {
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && new URL(response.url()).pathname !== '/favicon.ico') failed().push(`${response.status()} ${response.url()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
}
