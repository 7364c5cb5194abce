import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../lib/errors.js';
import { isProbePath, routedPath } from './protocol.js';

/** `Example.com.` → `example.com`, `[::1]` → `::1`. */
function canonicalName(name: string): string {
  return name
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
}

/** A Host header split: `Example.com:8443` → `example.com` and `8443`, `[::1]` → `::1` and none. */
function splitHost(host: string): { name: string; port?: string } {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.indexOf(':') < 0 ? host.length : host.indexOf(':');
  const port = host.slice(end + 1);
  return { name: canonicalName(host.slice(0, end)), ...(end < host.length && port !== '' ? { port } : {}) };
}

/** `GET https://host/path HTTP/1.1`: the scheme and authority of an absolute-form target, and the rest. */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)(.*)$/is;

/**
 * RFC 9112 §3.2.2: a request target in absolute form (as sent to a proxy) names the host itself,
 * and the Host header is then ignored. The target's authority takes the Host header's place, to be
 * checked like any Host, and the request goes on with its path alone, so that nothing built from
 * the request's address (the paging links) holds a second origin. For Fastify's `rewriteUrl`.
 */
export function originFormTarget(request: IncomingMessage): string {
  const url = request.url ?? '/';
  // The origin form (`/path`), which clients send almost always, needs no rewriting.
  if (url.startsWith('/')) return url;
  const absolute = ABSOLUTE_FORM.exec(url);
  if (!absolute) return url;
  const [, authority = '', rest = ''] = absolute;
  if (authority === '') delete request.headers.host;
  else request.headers.host = authority;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** The most of a refused Host a refusal repeats: a name of 253 characters, in brackets or not, and a port. */
const SHOWN_HOST_LENGTH = 261;

/** A Host as a refusal repeats it, cut short when it is too long to be a host. */
function shown(host: string): string {
  return host.length > SHOWN_HOST_LENGTH ? `${host.slice(0, SHOWN_HOST_LENGTH)}...` : host;
}

/**
 * Whether `host` names the port the connection arrived on (a port left out is the scheme's
 * default). A request made without a connection (`inject`) has no port to hold it to.
 */
function namesArrivalPort(request: FastifyRequest, port: string | undefined): boolean {
  const arrival = request.socket.localPort;
  if (arrival === undefined) return true;
  return (port === undefined ? (request.protocol === 'https' ? 443 : 80) : Number(port)) === arrival;
}

/**
 * Only the hosts the server is configured for are served (PUBLIC_URL's, else ALLOWED_HOSTS): the
 * `Location`, `next` and `prev` links are built from the request's host, which a client could
 * otherwise point anywhere. When they are (`anyPort` false: no PUBLIC_URL and no proxy in front),
 * the Host must also name the port the server listens on, or the links would lead elsewhere.
 * Refused before anything else is read; health probes, which reach an instance by its address, are
 * exempt.
 */
export function registerAllowedHosts(app: FastifyInstance, hosts: readonly string[], options: { anyPort: boolean }): void {
  const allowed = new Set(hosts.map(canonicalName));
  // Clients send the same Host on every request: its split is kept for the next one.
  let lastHost: string | undefined;
  let lastSplit: ReturnType<typeof splitHost> = { name: '' };
  // Synchronous (no promise and microtask per request), as every check that waits for nothing.
  app.addHook('onRequest', (request, _reply, done) => {
    if (isProbePath(routedPath(request))) return done();
    const host = request.host ?? '';
    if (host !== lastHost) {
      lastSplit = splitHost(host);
      lastHost = host;
    }
    const { name, port } = lastSplit;
    if (!allowed.has(name)) return done(errors.unknownHost(shown(host)));
    if (!options.anyPort && !namesArrivalPort(request, port)) return done(errors.otherPort(shown(host), request.socket.localPort!));
    done();
  });
}
