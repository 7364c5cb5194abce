import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OidcProviders } from './provider.js';
import { DISCOVERY_PATH, OIDC_ROUTES } from './provider.js';

/**
 * The request again, its body (already read by Fastify) readable once more, for oidc-provider, which
 * reads the body of its requests itself. What the library reads of a request besides the body (method,
 * URL, headers, the socket for the client's address and TLS) is the original's.
 */
function replayed(raw: IncomingMessage, body: Buffer): IncomingMessage {
  const replay = Readable.from([body]) as unknown as Record<string, unknown>;
  const original = raw as unknown as Record<string, unknown>;
  for (const property of ['method', 'url', 'headers', 'rawHeaders', 'httpVersion', 'httpVersionMajor', 'httpVersionMinor', 'socket', 'connection']) {
    replay[property] = original[property];
  }
  return replay as unknown as IncomingMessage;
}

/** The provider's answers: pages that may post forms on (a sign-out's confirmation) and a form post back to an application (its hashed script allowed). */
const PROVIDER_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "script-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Hands a request to the provider of its origin, with the headers every answer carries (request id, security headers). */
export function providerHandler(providers: OidcProviders, issuerOf: (request: FastifyRequest) => string) {
  return async (request: FastifyRequest, reply: FastifyReply, body?: Buffer, path?: string): Promise<void> => {
    const provider = await providers.providerFor(issuerOf(request));
    const raw = body === undefined ? request.raw : replayed(request.raw, body);
    if (path !== undefined) raw.url = path;
    reply.hijack();
    const response = reply.raw;
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) response.setHeader(name, value);
    response.setHeader('content-security-policy', PROVIDER_POLICY);
    // Its answer is logged as every other (Fastify's line of a completed request).
    await new Promise<void>((resolve) => {
      response.once('close', resolve);
      void provider.callback()(raw, response);
    });
  };
}

export type ProviderHandler = ReturnType<typeof providerHandler>;

/** A body read whole, so that the provider can read it again; bodies of its forms are small (it takes 56 KiB at most). */
const BODY_LIMIT = 56 * 1024;

/**
 * The provider's endpoints as Fastify routes (so that routing, 404s and the hooks of every request stay
 * Fastify's), each handing its request on. The token and revocation endpoints are /oauth/token and
 * /oauth/revoke, whose client credentials grant stays the API's own (oauth/oauth.routes.ts hands the rest on).
 */
export async function providerRoutes(app: FastifyInstance, { handle }: { handle: ProviderHandler }): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));
  const pass = (request: FastifyRequest, reply: FastifyReply) => handle(request, reply, request.body as Buffer | undefined);
  const both = ['GET', 'POST'] as const;
  const routes: [readonly ('GET' | 'POST')[], string][] = [
    [both, OIDC_ROUTES.authorization],
    [both, `${OIDC_ROUTES.authorization}/:uid`],
    [both, OIDC_ROUTES.userinfo],
    [['GET'], OIDC_ROUTES.jwks],
    [both, OIDC_ROUTES.end_session],
    [['POST'], `${OIDC_ROUTES.end_session}/confirm`],
    [['GET'], `${OIDC_ROUTES.end_session}/success`],
    [['POST'], OIDC_ROUTES.introspection],
    [['GET'], DISCOVERY_PATH],
  ];
  for (const [methods, url] of routes) app.route({ method: [...methods], url, config: { scope: 'none' }, schema: { hide: true }, handler: pass });
}
