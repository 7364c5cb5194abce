import { randomFillSync } from 'node:crypto';

const ID_PATTERN = /^[0-9a-f]{32}$/;

let lastMillis = 0;
let sequence = 0;

// Random bytes are drawn 4 KiB at a time: one call into the system's generator per 512 ids
// instead of one per id (an id is made for every request).
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

function randomEight(): Buffer {
  if (poolOffset + 8 > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 8;
  return Buffer.from(pool.subarray(poolOffset - 8, poolOffset));
}

/**
 * A new id: the 128 bits of a UUIDv7 as 32 lowercase hex characters. The 12-bit rand_a field
 * carries a counter within the same millisecond, so ids made by one process sort in creation order.
 */
export function newId(): string {
  let millis = Date.now();
  if (millis <= lastMillis) {
    millis = lastMillis;
    sequence += 1;
    if (sequence > 0xfff) {
      millis += 1;
      sequence = 0;
    }
  } else {
    sequence = 0;
  }
  lastMillis = millis;
  const random = randomEight();
  random[0] = (random[0]! & 0x3f) | 0x80; // RFC 9562 variant
  return millis.toString(16).padStart(12, '0') + (0x7000 | sequence).toString(16) + random.toString('hex');
}

/** Ids of any other form simply do not exist; callers answer 404 without a query. */
export function isId(value: string): boolean {
  return ID_PATTERN.test(value);
}
