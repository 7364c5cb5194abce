import type { Redis } from 'ioredis';
import { decide, oldestForgotten, slotIndex, slotWidth, SLOTS, type Slot, type WindowStore } from './sliding-window.js';

/**
 * One hash per key, slot index → count. The script drops forgotten slots, counts the rest, adds the
 * request when it fits, and returns the slots: read and write in one atomic step, so instances
 * sharing the store never admit more than the limit between them.
 */
const TAKE = `
local forgotten = tonumber(ARGV[1])
local current = ARGV[2]
local max = tonumber(ARGV[3])
local fields = redis.call('HGETALL', KEYS[1])
local total = 0
local slots = {}
for i = 1, #fields, 2 do
  if tonumber(fields[i]) <= forgotten then
    redis.call('HDEL', KEYS[1], fields[i])
  else
    total = total + tonumber(fields[i + 1])
  end
end
local allowed = 0
if total < max then
  redis.call('HINCRBY', KEYS[1], current, 1)
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {allowed, redis.call('HGETALL', KEYS[1])}
`;

type TakeReply = [number, string[]];

/** The slots of a Redis hash's fields and values, as HGETALL gives them. */
function slotsOf(fields: readonly string[]): Slot[] {
  const slots: Slot[] = [];
  for (let i = 0; i < fields.length; i += 2) slots.push([Number(fields[i]), Number(fields[i + 1])]);
  return slots;
}

interface WithTake {
  takeFromWindow(key: string, forgotten: number, current: number, max: number, ttlMs: number): Promise<TakeReply>;
}

/** Counters shared by every instance through Redis. */
export function redisStore(url: string, onError: (error: Error) => void): WindowStore {
  // ioredis (~60 modules) is loaded only by the processes that use Redis, not by every start.
  const connecting = import('ioredis').then(({ Redis }) => {
    const redis = new Redis(url, { connectTimeout: 1000, maxRetriesPerRequest: 1 }) as Redis & WithTake;
    redis.on('error', onError);
    redis.defineCommand('takeFromWindow', { numberOfKeys: 1, lua: TAKE });
    return redis;
  });
  return {
    async take(key, limit, at) {
      const current = slotIndex(limit, at);
      const ttlMs = Math.ceil(slotWidth(limit) * (SLOTS + 2));
      const redis = await connecting;
      const [allowed, fields] = await redis.takeFromWindow(`training-api:rate:${key}`, oldestForgotten(current), current, limit.max, ttlMs);
      return decide(limit, at, slotsOf(fields), allowed === 1);
    },
    async peek(key, limit, at) {
      const forgotten = oldestForgotten(slotIndex(limit, at));
      const redis = await connecting;
      const fields = Object.entries(await redis.hgetall(`training-api:rate:${key}`)).flat();
      const slots = slotsOf(fields).filter(([index]) => index > forgotten);
      const total = slots.reduce((sum, [, count]) => sum + count, 0);
      return decide(limit, at, slots, total < limit.max);
    },
    async close() {
      (await connecting).disconnect();
    },
  };
}
