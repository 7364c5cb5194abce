import assert from 'node:assert/strict';
import { it } from 'node:test';
import { EVENT_JSON, eventJson, eventOfRow, type EventRow } from '../../src/events/event-types.js';
import { Event } from '../../src/resources/events/events.schemas.js';

const ROW: EventRow = {
  id: '01a227ff47c17000a57c4bd49519a9a9',
  type: 'user.updated',
  created_date: '2026-11-29T15:49:31Z',
  data: JSON.stringify({ id: 'u1', firstName: 'O’Brien "the \\ one"\u0001', tags: ['a', 'b'], active: true }),
  previous_attributes: JSON.stringify({ firstName: 'Ada', updatedDate: '2026-11-28T10:00:00Z' }),
};

// The feed writes its pages with eventJson, webhooks send eventOfRow's object: the two must say the same, in the same order.
it('writes the same event as eventOfRow, with and without previous attributes and an actor', () => {
  const rows: EventRow[] = [
    ROW,
    { ...ROW, previous_attributes: null },
    { ...ROW, actor_type: 'token', actor_id: 't1', actor_name: 'HR sync "nightly"' },
    { ...ROW, actor_type: 'server', actor_id: null, actor_name: null },
  ];
  for (const row of rows) {
    const written = eventJson('org1', row);
    assert.equal(written, JSON.stringify(eventOfRow('org1', row)));
  }
});

it('lists every property of the Event schema and of its actor, each once, in the schema’s order', () => {
  const listed = EVENT_JSON.map(({ property }) => property);
  assert.deepEqual(listed, Object.keys(Event.properties));
  const actor = EVENT_JSON.find((member) => member.property === 'actor');
  assert.ok(actor && 'object' in actor);
  assert.deepEqual(
    actor.object.map(({ property }) => property),
    Object.keys(Event.properties.actor.properties),
  );
  const columns = EVENT_JSON.flatMap((member) => ('object' in member ? member.object.map(({ column }) => column) : [member.column]));
  assert.equal(new Set(columns).size, columns.length);
});
