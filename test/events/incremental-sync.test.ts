import assert from 'node:assert/strict';
import { it } from 'node:test';
import { changedSince, listAll } from '../helpers/collections.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';
import { eventsAfter } from '../helpers/events.js';

/** A small deterministic generator (mulberry32), so a failing sequence can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COLLECTIONS = ['users', 'offerings', 'registrations'] as const;
type Copy = Record<(typeof COLLECTIONS)[number], Map<string, any>>;

/**
 * A sync job by updatedDate as the README describes it: each collection's items updated from the
 * watermark its previous run was answered (inclusive), then the event feed after its cursor for
 * what was deleted. Deleting a user deletes its registrations, deleting an offering its (ejected)
 * registrations.
 */
class SyncJob {
  readonly copy: Copy = { users: new Map(), offerings: new Map(), registrations: new Map() };
  private readonly watermarks: Partial<Record<(typeof COLLECTIONS)[number], string>> = {};
  private cursor?: string;

  constructor(private readonly h: Harness) {}

  async run(): Promise<void> {
    for (const collection of COLLECTIONS) {
      const { items, watermark } = await changedSince(this.h, collection, this.watermarks[collection]);
      for (const item of items) this.copy[collection].set(item.id, item);
      this.watermarks[collection] = watermark;
    }
    const events = await eventsAfter(this.h, this.cursor);
    for (const event of events) {
      if (event.type === 'user.deleted') this.forget('users', 'userId', event.data.id);
      if (event.type === 'offering.deleted') this.forget('offerings', 'offeringId', event.data.id);
    }
    this.cursor = events.at(-1)?.id ?? this.cursor;
  }

  private forget(collection: 'users' | 'offerings', key: string, id: string): void {
    this.copy[collection].delete(id);
    for (const [registrationId, registration] of this.copy.registrations) {
      if (registration[key] === id) this.copy.registrations.delete(registrationId);
    }
  }
}

forEachEngine('incremental sync', (h) => {
  it('ends with exactly the server state after a random sequence of creates, updates and deletes', async () => {
    const next = random(20261123);
    const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(next() * items.length)];
    const job = new SyncJob(h);
    const live = { users: [] as string[], offerings: [] as string[], registrations: [] as string[] };
    await job.run();
    for (let step = 0; step < 120; step++) {
      const roll = next();
      if (roll < 0.15 || live.users.length === 0) {
        live.users.push(await h.create('users', { email: `sync${step}@example.com` }));
      } else if (roll < 0.25 || live.offerings.length === 0) {
        live.offerings.push(await h.create('offerings', { title: `Offering ${step}`, orderIndex: Math.floor(next() * 5) }));
      } else if (roll < 0.4) {
        await h.put(`users/${pick(live.users)}`, { firstName: `Name ${step}`, tags: [`t${step % 3}`] });
      } else if (roll < 0.5) {
        await h.put(`offerings/${pick(live.offerings)}`, { title: `Retitled ${step}`, orderIndex: Math.floor(next() * 5) });
      } else if (roll < 0.65) {
        const response = await h.post('registrations', { userId: pick(live.users), offeringId: pick(live.offerings) });
        if (response.statusCode === 201) live.registrations.push(String(response.headers.location).split('/').pop()!);
      } else if (roll < 0.75 && live.registrations.length > 0) {
        await h.put(`registrations/${pick(live.registrations)}`, next() < 0.5 ? { status: 'ejected' } : { grade: Math.floor(next() * 100) });
      } else if (roll < 0.85) {
        const id = pick(live.users)!;
        assert.equal((await h.delete(`users/${id}`)).statusCode, 204);
        live.users = live.users.filter((user) => user !== id);
      } else if (roll < 0.92) {
        const id = pick(live.offerings)!;
        // Refused (400) while it has registrations that are not ejected.
        if ((await h.delete(`offerings/${id}`)).statusCode === 204) live.offerings = live.offerings.filter((offering) => offering !== id);
      } else {
        await job.run();
      }
    }
    await job.run();
    for (const collection of COLLECTIONS) {
      const server = new Map((await listAll(h, collection)).map((item) => [item.id, item]));
      assert.deepEqual(job.copy[collection], server, collection);
    }
  });
});
