import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { WithinTransaction } from './conditional-requests.js';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';

/** The Fastify instance of the API: request types come from the route schemas (TypeBox). */
export type ApiInstance = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** A resource's routes: a plugin that is handed the resource's service, registered once under each base path. */
export type ResourceRoutes<S> = FastifyPluginAsyncTypebox<{ service: S }>;

/** Routes that also write under preconditions: handed the same service over one transaction too. */
export type ConditionalResourceRoutes<S> = FastifyPluginAsyncTypebox<{ service: S; transaction: WithinTransaction<S> }>;
