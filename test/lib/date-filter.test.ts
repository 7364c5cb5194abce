import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DATE_FILTER_HINT, parseDateFilter, parseTimestamp } from '../../src/lib/date-filter.js';

const ok = (input: string, from: string | undefined, to: string | undefined): void => {
  const expected: { from?: string; to?: string } = {};
  if (from !== undefined) expected.from = from;
  if (to !== undefined) expected.to = to;
  assert.deepEqual(parseDateFilter(input), expected, input);
};

describe('parseDateFilter: single periods', () => {
  it('precise timestamp is that second', () => {
    ok('2013-10-23T00:48:50Z', '2013-10-23T00:48:50Z', '2013-10-23T00:48:51Z');
  });

  it('imprecise forms cover the whole period', () => {
    ok('2013', '2013-01-01T00:00:00Z', '2014-01-01T00:00:00Z');
    ok('2013-10', '2013-10-01T00:00:00Z', '2013-11-01T00:00:00Z');
    ok('2013-10-23', '2013-10-23T00:00:00Z', '2013-10-24T00:00:00Z');
    ok('2013-10-23T00', '2013-10-23T00:00:00Z', '2013-10-23T01:00:00Z');
    ok('2013-10-23T00:48', '2013-10-23T00:48:00Z', '2013-10-23T00:49:00Z');
  });

  it('accepts a trailing Z on imprecise time forms', () => {
    ok('2013-10-23T00Z', '2013-10-23T00:00:00Z', '2013-10-23T01:00:00Z');
    ok('2013-10-23T00:48Z', '2013-10-23T00:48:00Z', '2013-10-23T00:49:00Z');
  });

  it('carries over month, year and day ends', () => {
    ok('2013-01-31', '2013-01-31T00:00:00Z', '2013-02-01T00:00:00Z');
    ok('2013-04-30', '2013-04-30T00:00:00Z', '2013-05-01T00:00:00Z');
    ok('2013-12', '2013-12-01T00:00:00Z', '2014-01-01T00:00:00Z');
    ok('2013-12-31', '2013-12-31T00:00:00Z', '2014-01-01T00:00:00Z');
    ok('2013-12-31T23', '2013-12-31T23:00:00Z', '2014-01-01T00:00:00Z');
    ok('2013-12-31T23:59', '2013-12-31T23:59:00Z', '2014-01-01T00:00:00Z');
    ok('2013-12-31T23:59:59Z', '2013-12-31T23:59:59Z', '2014-01-01T00:00:00Z');
    ok('2013-06-30T23:59:59Z', '2013-06-30T23:59:59Z', '2013-07-01T00:00:00Z');
  });

  it('handles leap years', () => {
    ok('2024-02-29', '2024-02-29T00:00:00Z', '2024-03-01T00:00:00Z');
    ok('2000-02-29', '2000-02-29T00:00:00Z', '2000-03-01T00:00:00Z');
    ok('2024-02', '2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z');
    ok('2023-02-28', '2023-02-28T00:00:00Z', '2023-03-01T00:00:00Z');
    ok('2024-02-28', '2024-02-28T00:00:00Z', '2024-02-29T00:00:00Z');
    assert.equal(parseDateFilter('2023-02-29'), undefined);
    assert.equal(parseDateFilter('1900-02-29'), undefined);
    assert.equal(parseDateFilter('2100-02-29'), undefined);
  });

  it('handles the extreme years', () => {
    ok('0001', '0001-01-01T00:00:00Z', '0002-01-01T00:00:00Z');
    ok('0099-12-31', '0099-12-31T00:00:00Z', '0100-01-01T00:00:00Z');
    // The period ending with year 9999 leaves `to` open.
    ok('9999', '9999-01-01T00:00:00Z', undefined);
    ok('9999-12-31T23:59:59Z', '9999-12-31T23:59:59Z', undefined);
    ok('9999-12-31T23:59:58Z', '9999-12-31T23:59:58Z', '9999-12-31T23:59:59Z');
    ok('9998', '9998-01-01T00:00:00Z', '9999-01-01T00:00:00Z');
  });
});

describe('parseDateFilter: fractional seconds and offsets', () => {
  it('takes fractional seconds as the second they fall in (what toISOString writes)', () => {
    ok('2026-11-23T07:28:08.000Z', '2026-11-23T07:28:08Z', '2026-11-23T07:28:09Z');
    ok('2026-11-23T07:28:08.999999Z', '2026-11-23T07:28:08Z', '2026-11-23T07:28:09Z');
    ok('2026-11-23T07:28:08.5+00:00', '2026-11-23T07:28:08Z', '2026-11-23T07:28:09Z');
  });

  it('normalises numeric offsets to UTC, in every spelling', () => {
    for (const zone of ['+00:00', '-00:00', '+0000', '+00']) ok(`2013-10-23T00:48:50${zone}`, '2013-10-23T00:48:50Z', '2013-10-23T00:48:51Z');
    ok('2013-10-23T02:48:50+02:00', '2013-10-23T00:48:50Z', '2013-10-23T00:48:51Z');
    ok('2013-10-22T19:18:50-0530', '2013-10-23T00:48:50Z', '2013-10-23T00:48:51Z');
    ok('2013-10-23T00:30:00+01', '2013-10-22T23:30:00Z', '2013-10-22T23:30:01Z');
    // An unencoded + in a query string arrives as a space.
    ok('2013-10-23T02:48:50 02:00', '2013-10-23T00:48:50Z', '2013-10-23T00:48:51Z');
  });

  it('shifts imprecise time periods by their offset', () => {
    ok('2013-10-23T00+02:00', '2013-10-22T22:00:00Z', '2013-10-22T23:00:00Z');
    ok('2013-10-23T00:48-01:00', '2013-10-23T01:48:00Z', '2013-10-23T01:49:00Z');
    ok('2014-01-01T00:30+05:30', '2013-12-31T19:00:00Z', '2013-12-31T19:01:00Z');
  });

  it('accepts them at either end of a range', () => {
    ok('2013-10-23T02:00:00.000+02:00/2013-10-23T00:59:59.999Z', '2013-10-23T00:00:00Z', '2013-10-23T01:00:00Z');
    ok('2013-10-23T00:00:00+01:00/..', '2013-10-22T23:00:00Z', undefined);
    assert.equal(parseDateFilter('2013-10-23T00:00:00-01:00/2013-10-23T00:00:00Z'), undefined);
  });

  it('keeps the years 0001-9999 after normalising', () => {
    ok('9999-12-31T23:59:59+01:00', '9999-12-31T22:59:59Z', '9999-12-31T23:00:00Z');
    ok('0001-01-01T01:00:00+01:00', '0001-01-01T00:00:00Z', '0001-01-01T00:00:01Z');
    assert.equal(parseDateFilter('9999-12-31T23-01:00'), undefined);
  });
});

describe('parseTimestamp', () => {
  it('gives the stored form of a moment, normalised to UTC', () => {
    assert.equal(parseTimestamp('2013-10-23T00:48:50Z'), '2013-10-23T00:48:50Z');
    assert.equal(parseTimestamp('2026-11-23T07:28:08.123Z'), '2026-11-23T07:28:08Z');
    assert.equal(parseTimestamp('2013-10-23T02:48:50+02:00'), '2013-10-23T00:48:50Z');
  });

  it('refuses periods and anything else', () => {
    for (const input of ['2013', '2013-10-23', '2013-10-23T00:48Z', '2013-10-23T00:48:50', '2013-02-30T00:00:00Z', '2013/2014', 'now']) {
      assert.equal(parseTimestamp(input), undefined, input);
    }
  });
});

describe('parseDateFilter: ranges', () => {
  it('includes both ends, each of which may be imprecise', () => {
    ok('2013-01/2013-03', '2013-01-01T00:00:00Z', '2013-04-01T00:00:00Z');
    ok('2013/2013', '2013-01-01T00:00:00Z', '2014-01-01T00:00:00Z');
    ok('2012-02-29/2013', '2012-02-29T00:00:00Z', '2014-01-01T00:00:00Z');
    ok('2013-10-23T00:48:50Z/2013-10-23T00:48:50Z', '2013-10-23T00:48:50Z', '2013-10-23T00:48:51Z');
    ok('2013-10-23T00:48:50Z/2013-10-23T01Z', '2013-10-23T00:48:50Z', '2013-10-23T02:00:00Z');
    ok('2013-12-31T23:59:59Z/2014', '2013-12-31T23:59:59Z', '2015-01-01T00:00:00Z');
  });

  it('supports open ends', () => {
    ok('2013-06/..', '2013-06-01T00:00:00Z', undefined);
    ok('../2012', undefined, '2013-01-01T00:00:00Z');
    ok('../2013-10-23T00:48:50Z', undefined, '2013-10-23T00:48:51Z');
    ok('2000/9999', '2000-01-01T00:00:00Z', undefined);
  });

  it('rejects ranges whose start is after their end', () => {
    assert.equal(parseDateFilter('2013-03/2013-01'), undefined);
    assert.equal(parseDateFilter('2014/2013'), undefined);
    assert.equal(parseDateFilter('2013-10-23T00:48:51Z/2013-10-23T00:48:50Z'), undefined);
    assert.equal(parseDateFilter('2014-01-01/2013-12-31T23:59:59Z'), undefined);
  });
});

describe('parseDateFilter: invalid input', () => {
  const invalid = [
    '',
    ' ',
    ' 2013',
    '2013 ',
    '2013\n',
    '2013-10-23 00:48:50Z',
    '2013-1',
    '2013-10-1',
    '13',
    '02013',
    '0000',
    'yesterday',
    'today',
    '2013-10-23T00:48:50z',
    '2013-10-23T00:48:50.Z',
    '2013-10-23T00:48:50.1234567890Z',
    '2013-10-23T00:48.5Z',
    '2013-10-23T00:48:50+24:00',
    '2013-10-23T00:48:50+02:60',
    '2013-10-23T00:48:50+2:00',
    '2013-10-23T00:48:50+02:0',
    '2013-10-23+02:00',
    '2013+02:00',
    '2013-10-23T00:48:50.5',
    '0001-01-01T00:00:00+00:01',
    '2013-10-23T00:48:50',
    '2013-10-23T',
    '2013-10-23TZ',
    '2013Z',
    '2013-10Z',
    '2013-10-23Z',
    '20131023',
    '2013-00',
    '2013-13',
    '2013-00-10',
    '2013-01-00',
    '2013-01-32',
    '2013-04-31',
    '2013-06-31',
    '2013-09-31',
    '2013-11-31',
    '2013-10-23T24',
    '2013-10-23T24:00',
    '2013-10-23T00:60',
    '2013-10-23T00:48:60Z',
    '2013-10-23T0',
    '2013-10-23T00:4',
    '１２３４',
    '../..',
    '..',
    '/',
    '2013/',
    '/2013',
    '2013/2014/2015',
    '.../2013',
    '2013/...',
    '2013-1/2014',
    '2013/yesterday',
    '2013 / 2014',
  ];
  for (const input of invalid) {
    it(`rejects ${JSON.stringify(input)}`, () => {
      assert.equal(parseDateFilter(input), undefined);
    });
  }
});

describe('parseDateFilter: properties', () => {
  // Small deterministic PRNG (mulberry32) so failures are reproducible.
  function mulberry32(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  // Date.UTC maps years 0-99 to 1900-1999, so set the year explicitly.
  const minMs = new Date(0).setUTCFullYear(1, 0, 1);
  const maxMs = new Date(0).setUTCFullYear(9999, 11, 31) + 86_399_000;
  const stored = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

  it('a precise timestamp t gives from = t and to = t + 1s (200 random t)', () => {
    const random = mulberry32(20131023);
    const seconds = (maxMs - minMs) / 1000;
    const samples = [minMs, maxMs, maxMs - 1000];
    while (samples.length < 200) samples.push(minMs + Math.floor(random() * (seconds + 1)) * 1000);
    for (const ms of samples) {
      const t = stored(ms);
      assert.match(t, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      const range = parseDateFilter(t);
      assert.ok(range, t);
      assert.equal(range.from, t);
      assert.equal(range.to, ms === maxMs ? undefined : stored(ms + 1000), t);
    }
  });

  it('string order matches time order for the produced bounds', () => {
    const random = mulberry32(42);
    for (let i = 0; i < 200; i++) {
      const a = minMs + Math.floor(random() * ((maxMs - minMs) / 1000)) * 1000;
      const range = parseDateFilter(stored(a));
      assert.ok(range?.from !== undefined && range.to !== undefined);
      assert.ok(range.from < range.to);
    }
  });
});

describe('DATE_FILTER_HINT', () => {
  it('names the accepted forms', () => {
    for (const form of ['2013-10-23T00:48:50Z', '2013', '2013-10', '2013-10-23', '2013-10-23T00', '2013-10-23T00:48', '..', '/']) {
      assert.ok(DATE_FILTER_HINT.includes(form), form);
    }
  });
});
