import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Agent, fetch as undiciFetch } from 'undici';
import { listenTls } from '../../src/server/listener.js';
import { ensureSelfSignedCertificate, type CertificatePair } from '../../src/server/tls-certificate.js';
import type { Harness } from './harness.js';

/** A request of a page, as a browser sends it. */
export interface PageRequest {
  method: string;
  /** A path (`/o/...`) or an absolute URL of the server. */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The answer, as a browser reads it. */
export interface PageReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Where a redirect leads, if it is one. */
  location?: string;
}

/** How a browser reaches the server: Fastify's inject, or a real HTTPS connection. */
export type Transport = (request: PageRequest) => Promise<PageReply>;

const locationOf = (headers: PageReply['headers']) => (typeof headers.location === 'string' ? headers.location : undefined);

/** Requests through the app's real routing, from `remoteAddress` (127.0.0.1 when absent). */
export function injected(app: FastifyInstance, remoteAddress?: string): Transport {
  return async ({ method, url, headers, body }) => {
    const response = await app.inject({
      method: method as 'GET',
      url: url.replace(/^https?:\/\/[^/]+/, ''),
      headers,
      ...(body === undefined ? {} : { payload: body }),
      ...(remoteAddress ? { remoteAddress } : {}),
    });
    const answered: PageReply['headers'] = Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name, typeof value === 'number' ? String(value) : value]),
    );
    return { status: response.statusCode, headers: answered, body: response.body, location: locationOf(answered) };
  };
}

/** Requests over HTTPS to `origin`, trusting `ca` alone. */
export function overHttps(origin: string, agent: Agent): Transport {
  return async ({ method, url, headers, body }) => {
    const response = await undiciFetch(new URL(url, origin), {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
      dispatcher: agent,
    });
    const answered: PageReply['headers'] = Object.fromEntries(response.headers);
    answered['set-cookie'] = response.headers.getSetCookie();
    const text = await response.text();
    return { status: response.status, headers: answered, body: text, location: locationOf(answered) };
  };
}

/** A form's fields; a list is sent as the same name repeated (checkboxes). */
export type Form = Record<string, string | readonly string[] | undefined>;

function encodeForm(form: Form): string {
  const encoded = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    if (value === undefined) continue;
    for (const item of [value].flat()) encoded.append(name, item);
  }
  return encoded.toString();
}

/** The hidden form token of a page. */
export function csrfOf(body: string): string | undefined {
  return /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
}

/** A page's title, without the organization's name. */
export function titleOf(body: string): string | undefined {
  return /<title>([^<·]*)/.exec(body)?.[1]?.trim();
}

/** The action of a page's first form (or of the first whose action matches `matching`). */
export function formActionOf(body: string, matching?: RegExp): string | undefined {
  const actions = [...body.matchAll(/<form method="post" action="([^"]+)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
  return matching ? actions.find((action) => matching.test(action)) : actions[0];
}

/**
 * A browser for the pages: it keeps cookies as a browser does (every one of ours is `__Host-`: one
 * host, every path), carries the form token of the last page it saw in the forms it posts, and can
 * follow redirects.
 */
export class PageBrowser {
  readonly cookies = new Map<string, string>();
  /** The form token of the last page that carried one. */
  csrf: string | undefined;
  /** The last answer. */
  last: PageReply | undefined;

  constructor(private readonly transport: Transport) {}

  /** A copy holding the same cookies (another tab, or the same cookies replayed by someone else). */
  clone(transport: Transport = this.transport): PageBrowser {
    const copy = new PageBrowser(transport);
    for (const [name, value] of this.cookies) copy.cookies.set(name, value);
    copy.csrf = this.csrf;
    return copy;
  }

  async request(method: string, url: string, options: { body?: string; headers?: Record<string, string> } = {}): Promise<PageReply> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers: Record<string, string> = { accept: 'text/html', ...(cookie ? { cookie } : {}), ...options.headers };
    const reply = await this.transport({ method, url, headers, ...(options.body === undefined ? {} : { body: options.body }) });
    for (const line of [reply.headers['set-cookie'] ?? []].flat()) this.keep(line);
    this.csrf = csrfOf(reply.body) ?? this.csrf;
    this.last = reply;
    return reply;
  }

  get(url: string, headers?: Record<string, string>): Promise<PageReply> {
    return this.request('GET', url, { ...(headers ? { headers } : {}) });
  }

  /** Posts a form with this browser's token (`_csrf: undefined` in `form` sends none). */
  post(url: string, form: Form, headers: Record<string, string> = {}): Promise<PageReply> {
    const fields = '_csrf' in form ? form : { _csrf: this.csrf, ...form };
    return this.request('POST', url, { body: encodeForm(fields), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  }

  /** Follows `reply`'s redirects (at most `limit`), stopping at an answer that is none or at an address `stop` matches. */
  async follow(reply: PageReply, stop?: (location: string) => boolean, limit = 10): Promise<PageReply> {
    let current = reply;
    for (let hops = 0; current.location && !stop?.(current.location); hops += 1) {
      if (hops === limit) throw new Error(`more than ${limit} redirects, the last to ${current.location}`);
      current = await this.get(current.location);
    }
    return current;
  }

  /** Opens the organization's sign-in page (for its form token) and signs in; the answer to the form. */
  async signIn(orgId: string, email: string, password: string, next?: string): Promise<PageReply> {
    if (!this.csrf) await this.get(`/o/${orgId}/sign-in`);
    return this.post(`/o/${orgId}/sign-in`, { email, password, ...(next === undefined ? {} : { next }) });
  }

  /** The value of the session cookie of the organization, if the browser holds one. */
  session(orgId: string): string | undefined {
    return this.cookies.get(`__Host-session-${orgId}`);
  }

  private keep(line: string): void {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const at = pair.indexOf('=');
    const name = pair.slice(0, at);
    const value = pair.slice(at + 1);
    const expired = attributes.some(
      (attribute) => /^max-age=0$/i.test(attribute) || (/^expires=/i.test(attribute) && Date.parse(attribute.slice(8)) <= Date.now()),
    );
    if (value === '' || expired) this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
}

/** A browser of the harness's app, through inject, from an address of its own unless told. */
export function browserOf(h: Harness, remoteAddress = freshAddress()): PageBrowser {
  return new PageBrowser(injected(h.app, remoteAddress));
}

/** A self-signed certificate for 127.0.0.1 and localhost, made in a temporary directory. */
export async function testCertificate(): Promise<CertificatePair> {
  const dir = await mkdtemp(join(tmpdir(), 'training-api-certificate-'));
  try {
    const { key, cert } = await ensureSelfSignedCertificate(dir);
    return { key, cert };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The app (built with `https`) listening on a free port of 127.0.0.1, with an agent that trusts its certificate alone. */
export async function listenHttps(
  app: FastifyInstance,
  certificate: CertificatePair,
): Promise<{ origin: string; agent: Agent; close(): Promise<void> }> {
  const server = await listenTls(app, { host: '127.0.0.1', port: 0 });
  const agent = new Agent({ connect: { ca: certificate.cert } });
  return {
    origin: `https://127.0.0.1:${server.port}`,
    agent,
    async close() {
      await agent.close();
      await server.close();
    },
  };
}

let addresses = 0;
/** An address no other browser of the run has used: the throttle counts each apart. */
export function freshAddress(): string {
  addresses += 1;
  return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
}

/**
 * A person of the organization of `token` who can sign in straight to the account page: a password,
 * and the standard agreement (every organization starts with it, required) accepted.
 */
export async function createPerson(h: Harness, user: Record<string, unknown>, token = h.org.token): Promise<string> {
  const id = await h.create('users', user, { token });
  const agreed = await h.put(`users/${id}/agreements/standard`, { agreed: true }, { token });
  if (agreed.statusCode !== 204) throw new Error(`PUT users/${id}/agreements/standard answered ${agreed.statusCode}: ${agreed.body}`);
  return id;
}
