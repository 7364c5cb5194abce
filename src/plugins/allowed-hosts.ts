import type { FastifyInstance } from 'fastify';
import { errors } from '../lib/errors.js';
import { isProbePath, routedPath } from './protocol.js';

/** `Example.com.` → `example.com`, `[::1]` → `::1`. */
function canonicalName(name: string): string {
  return name
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
}

/** A Host header without its port: `Example.com:8443` → `example.com`, `[::1]:8443` → `::1`. */
function hostnameOf(host: string): string {
  return canonicalName(host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':', 1)[0]!);
}

/**
 * Only the hosts the server is configured for are served (PUBLIC_URL's, else ALLOWED_HOSTS): the
 * `Location`, `next` and `prev` links are built from the request's host, which a client could
 * otherwise point anywhere. Refused before anything else is read; health probes, which reach an
 * instance by its address, are exempt.
 */
export function registerAllowedHosts(app: FastifyInstance, hosts: readonly string[]): void {
  const allowed = new Set(hosts.map(canonicalName));
  app.addHook('onRequest', async (request) => {
    if (!allowed.has(hostnameOf(request.host ?? '')) && !isProbePath(routedPath(request))) throw errors.unknownHost();
  });
}
