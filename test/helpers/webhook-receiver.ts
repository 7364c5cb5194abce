import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from './load.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The event (or ping) sent. */
  event: { id: string; type: string; data: any };
}

/** What the receiver answers a request with: a status, or `hang` (never answers). */
export type Answer = number | 'hang';

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
      const received: Received = { headers: request.headers, body, event: JSON.parse(body) };
      this.received.push(received);
      const answer = this.answer(received);
      if (answer === 'hang') return;
      response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'not now');
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
