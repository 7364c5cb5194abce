import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isId, newId } from '../../src/lib/ids.js';

it('makes 32-hex ids that are unique and sort in creation order', () => {
  const ids = Array.from({ length: 20_000 }, () => newId());
  assert.ok(ids.every(isId));
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
});

it('carries a UUIDv7 version and variant', () => {
  const id = newId();
  assert.equal(id[12], '7');
  assert.match(id[16]!, /[89ab]/);
  assert.ok(Math.abs(parseInt(id.slice(0, 12), 16) - Date.now()) < 5_000);
});

it('accepts only the 32-lowercase-hex form', () => {
  assert.equal(isId('0123456789abcdef0123456789abcdef'), true);
  for (const value of ['0123456789ABCDEF0123456789ABCDEF', '0123', '0123456789abcdef0123456789abcdef0', '01234567-89ab-cdef-0123-456789abcdef']) {
    assert.equal(isId(value), false, value);
  }
});
