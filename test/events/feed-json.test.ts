import assert from 'node:assert/strict';
import { it } from 'node:test';
import { EVENT_JSON_COLUMNS, eventJson, eventOfRow, type EventRow } from '../../src/events/event-types.js';
import { feedColumn } from '../../src/events/feed-positions.js';
import { newId } from '../../src/lib/ids.js';
import { forEachEngine, type Harness } from '../helpers/harness.js';

/** Every character JSON.stringify escapes (U+0000 aside: PostgreSQL's text cannot hold it), and some it leaves as they are. */
const CONTROLS = Array.from({ length: 0x1f }, (_, index) => String.fromCharCode(index + 1)).join('');
const AWKWARD = `Zoë O’Brien "the \\ one" / 😀 e\u0301 \u007f\u2028\u2029 ${CONTROLS}`;

/** Stored events as the outbox stores them (their JSON by JSON.stringify), with what makes writing their JSON hard. */
const STORED: Omit<EventRow, 'id' | 'created_date'>[] = [
  {
    type: 'user.updated',
    data: JSON.stringify({
      id: 'u1',
      firstName: AWKWARD,
      lastName: '',
      username: null,
      tags: ['a "b"', '\\', '😀'],
      nested: { deeper: { list: [1, -2.5e-7, null, true, { key: AWKWARD }], empty: {}, none: [] } },
    }),
    previous_attributes: JSON.stringify({ firstName: null, nested: { deeper: { empty: { was: 'x' } } }, [AWKWARD]: AWKWARD }),
    actor_type: 'token',
    actor_id: 'token1',
    actor_name: AWKWARD,
  },
  // Recorded before events named their actor.
  { type: 'user.created', data: JSON.stringify({ id: 'u2', email: 'ada@example.com' }), previous_attributes: null },
  { type: 'user.deleted', data: JSON.stringify({ id: 'u3' }), previous_attributes: null, actor_type: 'server', actor_id: null, actor_name: null },
  {
    type: 'offering.updated',
    data: JSON.stringify({ id: 'o1', title: '"', description: null }),
    previous_attributes: JSON.stringify({ title: '' }),
    actor_type: 'person',
    actor_id: 'o"brien\\@example.com',
    actor_name: null,
  },
  {
    type: 'user.updated',
    data: JSON.stringify({ id: 'u4' }),
    previous_attributes: JSON.stringify({}),
    actor_type: '',
    actor_id: null,
    actor_name: null,
  },
  {
    type: 'registration.graded',
    data: JSON.stringify({ id: 'r1', grade: 90, comment: '\n' }),
    previous_attributes: JSON.stringify({ grade: null }),
    actor_type: 'import',
    actor_id: null,
    actor_name: 'people.csv',
  },
];

/** Writes `events` into the events table of `orgId` as the outbox would (not placed yet, on PostgreSQL). */
async function storeEvents(h: Harness, orgId: string, events: typeof STORED): Promise<void> {
  for (const event of events) {
    await h.database.db
      .insertInto('events')
      .values({
        org_id: orgId,
        id: newId(),
        created_date: '2026-11-29T19:00:00Z',
        resource_id: JSON.parse(event.data).id,
        ...event,
        actor_type: event.actor_type ?? null,
        actor_id: event.actor_id ?? null,
        actor_name: event.actor_name ?? null,
      })
      .execute();
  }
}

/**
 * The page the feed answered before the database wrote its events' JSON: each row written by
 * `eventJson` and joined here, `next` after the last one when more follow.
 */
function pageBefore(orgId: string, rows: EventRow[], start: number, limit: number): string {
  const results = rows.slice(start, start + limit);
  let page = `{"results":[${results.map((row) => eventJson(orgId, row)).join(',')}]`;
  if (rows.length > start + limit) {
    const params = new URLSearchParams({ after: results.at(-1)!.id, limit: String(limit) });
    page += `,"next":${JSON.stringify(`http://localhost:80/api/v5/events?${params.toString()}`)}`;
  }
  return `${page}}`;
}

forEachEngine('event feed JSON', (h) => {
  it('answers every page byte for byte as the events were written one by one before, and no other organization’s', async () => {
    const other = await h.createOrganization('Other feed');
    // The other organization's events lie between this one's.
    for (const event of STORED) {
      await storeEvents(h, h.org.id, [event]);
      await storeEvents(h, other.id, [event, event]);
    }
    // A first read places the events (PostgreSQL), in the order the rows are then read in.
    assert.equal((await h.get('events', { query: { limit: '1000' } })).statusCode, 200);
    const rows: EventRow[] = await h.database.db
      .selectFrom('events')
      .select(EVENT_JSON_COLUMNS)
      .where('org_id', '=', h.org.id)
      .orderBy(feedColumn(h.database.db))
      .execute();
    assert.equal(rows.length, STORED.length);
    for (const row of rows) assert.equal(eventJson(h.org.id, row), JSON.stringify(eventOfRow(h.org.id, row)));

    for (const limit of [1, 4, STORED.length, 1000]) {
      for (let start = 0; start < rows.length; start += limit) {
        const query: Record<string, string> = { limit: String(limit), ...(start > 0 ? { after: rows[start - 1]!.id } : {}) };
        const response = await h.get('events', { query });
        assert.equal(response.statusCode, 200, response.body);
        const expected = pageBefore(h.org.id, rows, start, limit);
        assert.equal(response.body, expected, `limit ${limit}, from ${start}`);
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(response.headers['content-length'], String(Buffer.byteLength(expected)));
        assert.deepEqual(
          response.json().results,
          rows.slice(start, start + limit).map((row) => eventOfRow(h.org.id, row)),
        );
      }
    }
    // After the last event: an empty page, without `next`.
    const end = await h.get('events', { query: { after: rows.at(-1)!.id } });
    assert.equal(end.body, '{"results":[]}');
    // The other organization's token sees its own events only, and never this one's cursor.
    const others = await h.get('events', { token: other.token, query: { limit: '1000' } });
    assert.equal(others.json().results.length, 2 * STORED.length);
    assert.ok(others.json().results.every((event: { organizationId: string }) => event.organizationId === other.id));
    assert.equal((await h.get('events', { token: other.token, query: { after: rows[0]!.id } })).statusCode, 400);
  });
});
