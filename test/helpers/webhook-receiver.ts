import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { newSigningSecret } from '../../src/events/webhooks/signing.js';
import { newId } from '../../src/lib/ids.js';
import { now } from '../../src/lib/time.js';
import { eventually } from './eventually.js';
import type { ServerProcess } from './server-process.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The event (or ping) sent. */
  event: { id: string; type: string; createdDate: string; data: any };
  /** When the request's body had arrived (Date.now()). */
  receivedAt: number;
  /** The status it was answered with; undefined while it has not been (or never is). */
  status?: number;
}

/** What the receiver answers a request with: a status, `hang` (never answers), or a status after a pause. */
export type Answer = number | 'hang' | { status: number; afterMs: number };

/** A real HTTP server on loopback that records every webhook request it gets. */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Decides each answer; 204 unless replaced. */
  answer: (request: Received) => Answer = () => 204;
  private readonly server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const received: Received = { headers: request.headers, body, event: JSON.parse(body), receivedAt: Date.now() };
      this.received.push(received);
      const answer = this.answer(received);
      if (answer === 'hang') return;
      const send = (status: number) => {
        received.status = status;
        response.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
      };
      if (typeof answer === 'number') send(answer);
      else setTimeout(() => send(answer.status), answer.afterMs);
    });
  });

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** The requests that carried event `id`. */
  of(id: string): Received[] {
    return this.received.filter((request) => request.event.id === id);
  }

  /** Waits until `done` holds; fails after `timeoutMs` (generous: the machine is shared), saying what was received. */
  async until(done: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    await eventually(done, { what, timeoutMs }).catch((error: Error) => {
      throw new Error(`${error.message}; received ${this.received.map((r) => r.event.type).join(', ')}`);
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

/**
 * Waits until no delivery of the webhook is pending: each one has succeeded or failed for good, so
 * none is still to be sent, or sent again, and what the receiver has is all it will get.
 */
export async function untilDeliveriesSettled(server: ServerProcess, token: string, webhookId: string, timeoutMs = 60_000): Promise<void> {
  await eventually(
    async () => {
      for (let path = `webhooks/${webhookId}/deliveries?limit=100`; ;) {
        const page = JSON.parse((await server.request('GET', path, { token })).body);
        if (page.results.some((delivery: { status: string }) => delivery.status === 'pending')) return false;
        if (!page.next) return true;
        path = String(page.next).slice(String(page.next).indexOf('/api/v5/') + '/api/v5/'.length);
      }
    },
    { what: `every delivery of webhook ${webhookId} settled`, timeoutMs, intervalMs: 100 },
  );
}

/** 271 characters, each label within DNS's 63: over the 253 a name may have, and the 255 bytes TLS's server name may. */
export const LONG_HOST = `${['a', 'b', 'c', 'd'].map((letter) => letter.repeat(63)).join('.')}.hookexample.com`;

/**
 * A webhook written straight into the database, as one saved before the rules that now refuse its
 * URL would be: what its deliveries do is the delivery's own check. Returns its id.
 */
export async function storeWebhook(db: Kysely<Database>, orgId: string, url: string, events: readonly string[]): Promise<string> {
  const id = newId();
  const at = now();
  await db
    .insertInto('webhooks')
    .values({
      org_id: orgId,
      id,
      url,
      description: null,
      event_types: events.join(' '),
      secret: newSigningSecret(),
      created_date: at,
      updated_date: at,
      failing_since: null,
      disabled_date: null,
      disabled_reason: null,
    })
    .execute();
  return id;
}
