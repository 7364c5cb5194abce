import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { now } from '../lib/time.js';

/** How many of its latest SCIM requests an organization keeps. */
export const SCIM_REQUESTS_KEPT = 100;
const PATH_LIMIT = 300;
const USER_AGENT_LIMIT = 200;

/** A request of the log, as the console shows it. */
export interface ScimRequest {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  tokenId: string | null;
  userAgent: string | null;
  createdDate: string;
}

/**
 * The last requests each organization's identity provider made to /scim/v2: the method, the path
 * without its query, the status, when and how long, the token's id and the User-Agent. Never a body
 * (a provisioned user's password travels in one) nor a header's secret. Each organization keeps its
 * latest SCIM_REQUESTS_KEPT, the older ones deleted as new ones come.
 */
export function scimRequestLog(db: Kysely<Database>) {
  return {
    /** Records the answered request of an authenticated caller (one without a token names no organization). */
    async record(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      const caller = request.caller as FastifyRequest['caller'] | null;
      if (!caller) return;
      const path = request.url.split('?', 1)[0]!;
      const userAgent = request.headers['user-agent'];
      await db
        .insertInto('scim_requests')
        .values({
          org_id: caller.orgId,
          method: request.method.slice(0, 10),
          path: path.slice(0, PATH_LIMIT),
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime),
          token_id: caller.tokenId.slice(0, 32),
          user_agent: userAgent ? userAgent.slice(0, USER_AGENT_LIMIT) : null,
          created_date: now(),
        })
        .execute();
      await db
        .deleteFrom('scim_requests')
        .where('org_id', '=', caller.orgId)
        .where('seq', '<=', (eb) =>
          eb.selectFrom('scim_requests').select('seq').where('org_id', '=', caller.orgId).orderBy('seq', 'desc').limit(1).offset(SCIM_REQUESTS_KEPT),
        )
        .execute();
    },

    /** The organization's latest requests, newest first. */
    async latest(orgId: string): Promise<ScimRequest[]> {
      const rows = await db
        .selectFrom('scim_requests')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('seq', 'desc')
        .limit(SCIM_REQUESTS_KEPT)
        .execute();
      return rows.map((row) => ({
        method: row.method,
        path: row.path,
        status: row.status,
        durationMs: row.duration_ms,
        tokenId: row.token_id,
        userAgent: row.user_agent,
        createdDate: row.created_date,
      }));
    },
  };
}
