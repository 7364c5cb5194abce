import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONSOLE_SCRIPT } from './browser-script.js';

/**
 * A script the console's pages load, served from this origin (their CSP allows no other). Each encoding is
 * compressed once, when first asked for: at the highest levels Chart.js takes about a second of CPU, which no process
 * that never serves a console page (a worker, a command, most of the test suite) should pay at start.
 */
class Asset {
  readonly path: string;
  #gzip: Buffer | undefined;
  #brotli: Buffer | undefined;

  constructor(
    name: string,
    readonly identity: Buffer,
    readonly type = 'text/javascript; charset=utf-8',
  ) {
    this.path = `/assets/${name}.${hash('sha256', identity, 'hex').slice(0, 16)}.js`;
  }

  get gzip(): Buffer {
    return (this.#gzip ??= gzipSync(this.identity, { level: 9 }));
  }

  get brotli(): Buffer {
    return (this.#brotli ??= brotliCompressSync(this.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  }
}

function asset(name: string, text: string | Buffer): Asset {
  return new Asset(name, Buffer.from(text));
}

const script = asset('console', CONSOLE_SCRIPT);
/** Chart.js (maintained, canvas charts with a table of the same figures beside each one for screen readers). */
// Its package exports no path to the browser build, which sits beside the one it exports.
const charts = asset('chart', readFileSync(join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js')));

/** Under /o (the pages' prefix). */
export const CONSOLE_SCRIPT_PATH = `/o${script.path}`;
export const CHART_SCRIPT_PATH = `/o${charts.path}`;

/** Brotli, else gzip, else as it is, as the browser accepts. */
function send(request: FastifyRequest, reply: FastifyReply, served: Asset): FastifyReply {
  const accepted = request.headers['accept-encoding'] ?? '';
  const [encoding, body] = /\bbr\b/.test(accepted)
    ? (['br', served.brotli] as const)
    : /\bgzip\b/.test(accepted)
      ? (['gzip', served.gzip] as const)
      : ([undefined, served.identity] as const);
  if (encoding) reply.header('content-encoding', encoding);
  return reply.header('vary', 'accept-encoding').header('cache-control', 'public, max-age=31536000, immutable').type(served.type).send(body);
}

/** The console's scripts, each at an address that changes with its content. */
export function consoleAssetRoutes(app: FastifyInstance): void {
  for (const served of [script, charts]) {
    app.get(served.path, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => send(request, reply, served));
  }
}

/** What a page's scripts weigh as sent to a browser that takes brotli (the console's budget is 150 KB). */
export function scriptSizes(): { console: number; charts: number } {
  return { console: script.brotli.length, charts: charts.brotli.length };
}
