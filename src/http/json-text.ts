import type { FastifyReply } from 'fastify';

/** What Fastify answers a serialized JSON body with. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers JSON text as it is (written by the database, or kept from an earlier answer), or its UTF-8
 * bytes: Fastify serializes only objects.
 */
export function sendJsonText(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.type(JSON_TYPE).send(json);
}
