import assert from 'node:assert/strict';
import { it } from 'node:test';
import { batchSizer } from '../../src/imports/users-import.js';

it("sizes an import's batches by time in multiples of 50 rows, from 50 to 10,000, growing at most twofold", () => {
  const sizer = batchSizer(200);
  assert.equal(sizer.rows, 500);
  const seen = new Set<number>();
  // Batches that took from 0.01 to 1 ms a row, in an order that is the same each run.
  for (let step = 0, seed = 7; step < 2_000; step++) {
    seed = (seed * 7919 + 13) % 10_007;
    const before: number = sizer.rows;
    const ms = Math.max(1, Math.round((before * (1 + (seed % 100))) / 100));
    sizer.took(before, ms);
    const rows: number = sizer.rows;
    assert.equal(rows % 50, 0, `${rows} rows after a batch of ${before} in ${ms} ms`);
    assert.ok(rows >= 50 && rows <= 10_000 && rows <= Math.max(50, before * 2), `${rows} rows after ${before}`);
    seen.add(rows);
  }
  assert.ok(seen.size > 20, 'the sizes vary with the time taken');
  sizer.took(1_000, 400);
  assert.equal(sizer.rows, 500, 'a batch of twice the target halves');
  sizer.took(500, 150);
  assert.equal(sizer.rows, 650, '667 rows would take the target: 650');
});

it('sizes shared batches (others write beside the import) down to 10 rows, in tens under 50', () => {
  const sizer = batchSizer(40);
  sizer.took(500, 400, 5, true);
  assert.equal(sizer.rows, 10, 'a batch of 80 times the shared target: the fewest rows');
  sizer.took(10, 2, 5, true);
  assert.equal(sizer.rows, 20, 'growing at most twofold');
  sizer.took(20, 3, 5, true);
  assert.equal(sizer.rows, 30, '33 rows would take the target: 30');
  sizer.took(30, 1, 40);
  assert.equal(sizer.rows, 50, 'alone again: 50 rows at least');
});
