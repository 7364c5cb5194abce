import { randomFillSync } from 'node:crypto';

const ID_PATTERN = /^[0-9a-f]{32}$/;

let lastMillis = 0;
let sequence = 0;

// Random bytes are drawn 4 KiB at a time: one call into the system's generator per 512 ids
// instead of one per id (an id is made for every request).
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

/** Eight random bytes as 16 hex characters, the first with the RFC 9562 variant bits set. */
function randomHex(): string {
  if (poolOffset + 8 > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += 8;
  pool[start] = (pool[start]! & 0x3f) | 0x80;
  return pool.toString('hex', start, poolOffset);
}

/** The hex of the last millisecond an id was made in: ids made in the same millisecond share it. */
let millisHex = '';

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
  if (millis !== lastMillis || millisHex === '') millisHex = millis.toString(16).padStart(12, '0');
  lastMillis = millis;
  return millisHex + (0x7000 | sequence).toString(16) + randomHex();
}

/** Ids of any other form simply do not exist; callers answer 404 without a query. */
export function isId(value: string): boolean {
  return ID_PATTERN.test(value);
}
