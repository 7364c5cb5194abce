import http from 'node:http';
import https from 'node:https';
import type { Config } from '../../config.js';
import type { Context } from '../command.js';

const HEALTHCHECK_TIMEOUT_MS = 5000;

/** `healthcheck`: for a container's HEALTHCHECK, exit code 0 when the local server's /healthz answers 200. */
export async function healthcheck({ config, io, print }: Context): Promise<number> {
  const status = await localHealth(config);
  if (status === 200) {
    print({ status: 'ok' }, 'ok');
    return 0;
  }
  io.err(`training-api: ${typeof status === 'number' ? `/healthz answered ${status}` : `${status}: is the server running, at HOST and PORT?`}`);
  return 1;
}

/** GET /healthz of the server this configuration describes, on the loopback interface: its status or why none. */
function localHealth(config: Config): Promise<number | string> {
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  const host = wildcard ? '127.0.0.1' : config.host;
  // The server's own certificate, self-signed or not, is not what a liveness probe checks.
  const client = config.trustProxy ? http : https;
  return new Promise((resolve) => {
    const request = client.get(
      { host, port: config.port, path: '/healthz', rejectUnauthorized: false, timeout: HEALTHCHECK_TIMEOUT_MS },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer from ${host}:${config.port} within ${HEALTHCHECK_TIMEOUT_MS} ms`)));
    request.on('error', (error) => resolve(error.message));
  });
}
