import fastJsonStringify from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';

/**
 * Each response schema's serializer, built once per process and shared by every app it builds (both base paths, the
 * apps of a test file, a worker's restarts): building one is code generation, the larger part of an app's start.
 * Fastify's own compiler builds the same serializer (`fast-json-stringify` of the schema, with no shared schemas:
 * the app adds none), once per route and app.
 */
const serializers = new WeakMap<object, (data: unknown) => string>();

export function registerSerialization(app: FastifyInstance): void {
  app.setSerializerCompiler(({ schema }) => {
    let serialize = serializers.get(schema);
    if (!serialize) serializers.set(schema, (serialize = fastJsonStringify(schema, { schema: {} }) as (data: unknown) => string));
    return serialize;
  });
}
