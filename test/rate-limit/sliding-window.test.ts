import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { redisStore } from '../../src/rate-limit/redis-store.js';
import { memoryStore, type Limit, type WindowStore } from '../../src/rate-limit/sliding-window.js';
import { REDIS_AVAILABLE, startRedis } from '../helpers/private-redis.js';

const LIMIT: Limit = { max: 10, windowMs: 60_000 };
/** A moment just before a minute boundary, where a fixed window would start counting afresh. */
const EDGE = 1_800_000_000_000 - 500;

function behavesAsASlidingWindow(name: string, open: () => Promise<{ store: WindowStore; stop?: () => Promise<void> }>) {
  describe(name, () => {
    let store: WindowStore;
    let stop: (() => Promise<void>) | undefined;
    let key = 0;
    const fresh = () => `test-${process.pid}-${key++}`;
    before(async () => ({ store, stop } = await open()));
    after(async () => {
      await store.close();
      await stop?.();
    });

    it('admits the limit, then refuses with the time until a slot is forgotten', async () => {
      const k = fresh();
      for (let i = 0; i < LIMIT.max; i++) {
        const decision = await store.take(k, LIMIT, EDGE - 10_000);
        assert.equal(decision.allowed, true);
        assert.equal(decision.remaining, LIMIT.max - i - 1);
      }
      const refused = await store.take(k, LIMIT, EDGE - 10_000);
      assert.equal(refused.allowed, false);
      assert.equal(refused.remaining, 0);
      assert.ok(refused.resetMs > 50_000 && refused.resetMs <= 63_000, String(refused.resetMs));
    });

    it('keeps a burst at the end of one window and the start of the next within the limit', async () => {
      const k = fresh();
      let admitted = 0;
      for (let i = 0; i < LIMIT.max; i++) if ((await store.take(k, LIMIT, EDGE)).allowed) admitted++;
      for (let i = 0; i < LIMIT.max; i++) if ((await store.take(k, LIMIT, EDGE + 1000)).allowed) admitted++;
      assert.equal(admitted, LIMIT.max);
    });

    it('never admits more than the limit in any interval as long as the window', async () => {
      const k = fresh();
      const admittedAt: number[] = [];
      // A steady client, one request every 700 ms for five minutes, trying twice each time.
      for (let at = EDGE; at < EDGE + 300_000; at += 700) {
        for (const attempt of [0, 1]) if ((await store.take(k, LIMIT, at + attempt)).allowed) admittedAt.push(at);
      }
      for (let i = 0; i < admittedAt.length; i++) {
        const inWindow = admittedAt.filter((at) => at >= admittedAt[i]! && at < admittedAt[i]! + LIMIT.windowMs).length;
        assert.ok(inWindow <= LIMIT.max, `${inWindow} admitted within a window from ${admittedAt[i]}`);
      }
      // ... and the budget comes back: close to the limit in every window over the long run.
      assert.ok(admittedAt.length >= LIMIT.max * 4, String(admittedAt.length));
    });

    it('forgets a key once its window has passed', async () => {
      const k = fresh();
      for (let i = 0; i < LIMIT.max; i++) await store.take(k, LIMIT, EDGE);
      assert.equal((await store.take(k, LIMIT, EDGE + 30_000)).allowed, false);
      assert.equal((await store.take(k, LIMIT, EDGE + LIMIT.windowMs + LIMIT.windowMs / 20)).allowed, true);
    });
  });
}

behavesAsASlidingWindow('sliding window in memory', async () => ({ store: memoryStore() }));

describe('sliding window in Redis', { skip: REDIS_AVAILABLE ? false : 'redis-server is not installed' }, () => {
  behavesAsASlidingWindow('one store', async () => {
    const redis = await startRedis();
    return { store: redisStore(redis.url, (error) => assert.fail(error)), stop: redis.stop };
  });

  it('shares one budget between instances: concurrent takes from two stores admit exactly the limit', async () => {
    const redis = await startRedis();
    const stores = [redisStore(redis.url, (error) => assert.fail(error)), redisStore(redis.url, (error) => assert.fail(error))];
    try {
      const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => stores[i % 2]!.take('shared', LIMIT, EDGE)));
      assert.equal(decisions.filter((decision) => decision.allowed).length, LIMIT.max);
    } finally {
      for (const store of stores) await store.close();
      await redis.stop();
    }
  });
});
