import { randomBytes } from 'node:crypto';

const ID_PATTERN = /^[0-9a-f]{32}$/;

let lastMillis = 0;
let sequence = 0;

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
  const random = randomBytes(8);
  random[0] = (random[0]! & 0x3f) | 0x80; // RFC 9562 variant
  return (
    millis.toString(16).padStart(12, '0') +
    (0x7000 | sequence).toString(16) +
    random.toString('hex')
  );
}

/** Ids of any other form simply do not exist; callers answer 404 without a query. */
export function isId(value: string): boolean {
  return ID_PATTERN.test(value);
}
