import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from './load.js';

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

  /** Waits until `done` holds, checking every 50 ms; fails after `timeoutMs` (generous: the machine is shared). */
  async until(done: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received ${this.received.map((r) => r.event.type).join(', ')}`);
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
