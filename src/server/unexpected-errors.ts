import type { FastifyBaseLogger } from 'fastify';
import { currentRequestId } from '../plugins/request-id.js';

/**
 * Errors nothing was written to handle (a rejected promise nobody awaited, an 'error' event
 * nobody listens to) are logged, with the id of the request they arose in, and the server keeps
 * serving: such an error ends one piece of work, while exiting would end every request in flight
 * and, for an error that recurs, every instance in turn. Returns the function that stops this.
 */
export function reportUnexpectedErrors(log: FastifyBaseLogger): () => void {
  const report = (message: string) => (error: unknown) => {
    const requestId = currentRequestId();
    log.error({ err: error, ...(requestId ? { requestId } : {}) }, message);
  };
  const onRejection = report('unhandled promise rejection');
  const onException = report('uncaught exception');
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
