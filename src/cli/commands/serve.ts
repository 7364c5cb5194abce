import type { Context } from '../command.js';
import { serve as startServer } from '../serve.js';

/** `serve`: the server until SIGINT or SIGTERM, then a graceful close. */
export async function serve({ config, io }: Context): Promise<number> {
  const server = await startServer(config, io.err);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  io.err('Shutting down');
  await server.close();
  return 0;
}
