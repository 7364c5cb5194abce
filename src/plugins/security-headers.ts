import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/** The interactive reference for people; everything else the server answers is API data. */
const DOCS_PATH = /^\/docs(?:[/?]|$)/;

/**
 * Security headers on every response (helmet: Strict-Transport-Security, X-Content-Type-Options:
 * nosniff, a frame ban, ...). API answers are JSON that nothing may embed or run, hence a CSP that
 * allows nothing, and never stored by a cache: they carry personal data. The /docs page brings its
 * own policy (see plugins/openapi.ts). Registered first, so that every refusal carries them too.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!DOCS_PATH.test(request.url)) reply.header('Cache-Control', 'no-store');
  });
}
