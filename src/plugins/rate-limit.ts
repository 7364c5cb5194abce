import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { errors } from '../lib/errors.js';

export interface RateLimitSettings {
  /** Requests per window and token. */
  max: number;
  windowMs: number;
  /** Shared counters for several instances; without it each instance counts alone. */
  redisUrl?: string;
}

/**
 * Per-token request budget, counted after authentication (so the key is the token, not an IP)
 * and answered with the v5 error shape plus `Retry-After` and `RateLimit-*` headers.
 */
export async function registerRateLimit(app: FastifyInstance, settings: RateLimitSettings): Promise<void> {
  const redis = settings.redisUrl ? new Redis(settings.redisUrl, { connectTimeout: 1000, maxRetriesPerRequest: 1, lazyConnect: false }) : undefined;
  if (redis) {
    redis.on('error', (error) => app.log.warn({ err: error }, 'rate-limit store unreachable; requests are not limited meanwhile'));
    app.addHook('onClose', async () => {
      redis.disconnect();
    });
  }
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: settings.max,
    timeWindow: settings.windowMs,
    ...(redis ? { redis, nameSpace: 'training-api:rate:' } : {}),
    skipOnError: true, // a store outage must not take the API down with it
    enableDraftSpec: true,
    allowList: (request) => !request.caller,
    keyGenerator: (request) => (request.caller ? request.caller.tokenId : request.ip), // runs before allowList
    errorResponseBuilder: (_request, context) => errors.tooManyRequests(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
}
