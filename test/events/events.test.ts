import assert from 'node:assert/strict';
import { it } from 'node:test';
import { pruneEvents } from '../../src/events/retention.js';
import { beforeCommit, inTransaction } from '../../src/db/unit-of-work.js';
import { recordEvent } from '../../src/events/outbox.js';
import { Conflict } from '../../src/lib/domain-errors.js';
import { usersService } from '../../src/resources/users/users.service.js';
import type { User } from '../../src/resources/users/users.schemas.js';
import { UNKNOWN_CURSOR } from '../../src/resources/events/events.service.js';
import { createUser, unique } from '../helpers/collections.js';
import { eventsAfter, latestEventId } from '../helpers/events.js';
import { forEachEngine } from '../helpers/harness.js';
import { GROUP_SCHEMA, ScimClient } from '../scim/scim-client.js';
import { TEST_ACTOR } from '../helpers/actors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

forEachEngine('event feed', (h) => {
  const last = () => latestEventId(h);

  it('records every kind of change with the resource as the API returns it, in order', async () => {
    const start = await last();
    const userId = await createUser(h);
    const categoryId = await h.create('userfieldcategories', { name: unique('Profile'), type: 'public' });
    const fieldId = await h.create('userfields', { type: 'text', name: 'Job', categoryId });
    assert.equal((await h.put(`users/${userId}`, { firstName: 'Ada' })).statusCode, 204);
    assert.equal((await h.put(`users/${userId}/userfieldvalues`, { [fieldId]: 'Engineer' })).statusCode, 204);
    const valuesDate = (await h.get(`users/${userId}`)).json().updatedDate;
    assert.equal((await h.put(`users/${userId}/agreements/standard`, { agreed: true })).statusCode, 204);
    const offeringId = await h.create('offerings', { title: 'Course' });
    assert.equal((await h.put(`offerings/${offeringId}`, { title: 'Course 2' })).statusCode, 204);
    const registrationId = await h.create('registrations', { userId, offeringId });
    const user = (await h.get(`users/${userId}`)).json();
    const offering = (await h.get(`offerings/${offeringId}`)).json();
    const registration = (await h.get(`registrations/${registrationId}`)).json();
    assert.equal((await h.put(`registrations/${registrationId}`, { status: 'ejected' })).statusCode, 204);
    const ejected = (await h.get(`registrations/${registrationId}`)).json();
    const second = await h.create('registrations', { userId, offeringId });
    assert.equal((await h.put(`registrations/${second}`, { grade: 90 })).statusCode, 204);
    const graded = (await h.get(`registrations/${second}`)).json();
    const agreement = (await h.get(`users/${userId}/agreements/standard`)).json();
    const otherUser = await createUser(h);
    const otherUserRead = (await h.get(`users/${otherUser}`)).json();
    assert.equal((await h.delete(`users/${otherUser}`)).statusCode, 204);
    const bare = await h.create('offerings', { title: 'Bare' });
    const bareRead = (await h.get(`offerings/${bare}`)).json();
    assert.equal((await h.delete(`offerings/${bare}`)).statusCode, 204);

    const events = await eventsAfter(h, start);
    assert.deepEqual(
      events.map((event) => event.type),
      [
        'user.created',
        'userfieldcategory.created',
        'userfield.created',
        'user.updated',
        'userfieldvalues.updated',
        'useragreement.updated',
        'offering.created',
        'offering.updated',
        'registration.created',
        'registration.ejected',
        'registration.created',
        'registration.graded',
        'user.created',
        'user.deleted',
        'offering.created',
        'offering.deleted',
      ],
    );
    for (const event of events) {
      assert.equal(event.organizationId, h.org.id);
      assert.match(event.id, /^[0-9a-f]{32}$/);
      assert.match(event.createdDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
    assert.equal(new Set(events.map((event) => event.id)).size, events.length);
    const byType = (type: string) => events.filter((event) => event.type === type).map((event) => event.data);
    assert.deepEqual(byType('user.updated'), [{ ...user, updatedDate: byType('user.updated')[0].updatedDate }]);
    assert.deepEqual(byType('userfieldvalues.updated'), [{ userId, values: { [fieldId]: 'Engineer' }, updatedDate: valuesDate }]);
    // Agreeing was the user's last change: the event carries the updatedDate it set.
    assert.deepEqual(byType('useragreement.updated'), [{ userId, ...agreement, updatedDate: user.updatedDate }]);
    assert.deepEqual(byType('offering.updated'), [offering]);
    assert.deepEqual(byType('registration.created')[0], registration);
    assert.deepEqual(byType('registration.ejected'), [ejected]);
    assert.deepEqual(byType('registration.graded'), [graded]);
    // Deletions leave a tombstone: the resource as it was.
    assert.deepEqual(byType('user.deleted'), [otherUserRead]);
    assert.deepEqual(byType('offering.deleted'), [bareRead]);
  });

  it('pages with after and limit; an unknown or foreign cursor is a 400; other organizations see nothing', async () => {
    await createUser(h);
    await createUser(h);
    const all = await eventsAfter(h);
    const first = await h.get('events', { query: { limit: '1' } });
    assert.equal(first.statusCode, 200);
    assert.deepEqual(
      first.json().results.map((e: { id: string }) => e.id),
      [all[0].id],
    );
    const next = new URL(first.json().next);
    assert.equal(next.pathname, '/api/v5/events');
    assert.deepEqual(Object.fromEntries(next.searchParams), { after: all[0].id, limit: '1' });
    assert.deepEqual((await h.get('events', { query: { after: all.at(-1).id } })).json(), { results: [] });

    const other = await h.createOrganization(unique('Other events'));
    assert.deepEqual(await eventsAfter(h, undefined, other.token), []);
    for (const after of [all[0].id, 'nope']) {
      const refused = await h.get('events', { query: { after }, token: other.token });
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(refused.json().fieldErrors, { after: UNKNOWN_CURSOR });
    }
    for (const query of [{ limit: '0' }, { limit: '1001' }, { offset: '1' }] as Record<string, string>[])
      assert.equal((await h.get('events', { query })).statusCode, 400);
    // Beyond v5's 100: the feed gives pages of up to 1,000.
    const largest = await h.get('events', { query: { limit: '1000' } });
    assert.equal(largest.statusCode, 200);
    assert.deepEqual(largest.json().results, all.slice(0, 1000));
  });

  it('records changes made through SCIM, which go through the same services', async () => {
    const start = await last();
    const scim = await ScimClient.of(h);
    const id = await scim.createUser({ userName: `${unique('scim').replace(' ', '')}@example.com` });
    const events = await eventsAfter(h, start);
    assert.deepEqual(
      events.map((event) => [event.type, event.data.id]),
      [['user.created', id]],
    );
  });

  it('records nothing for a change whose unit of work fails after recording it, and refuses an event outside a unit of work', async () => {
    const start = await last();
    const userId = await createUser(h);
    const afterCreate = await last();
    // Adding members tags the existing user, then the unknown id refuses the whole request.
    const scim = await ScimClient.of(h);
    const refused = await scim.post('/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: unique('Rolled back'),
      members: [{ value: userId }, { value: '0'.repeat(32) }],
    });
    assert.equal(refused.statusCode, 400);
    await assert.rejects(
      inTransaction(h.database.db, TEST_ACTOR, async (trx) => {
        await usersService(trx, DEFAULT_PASSWORD_POLICY).create(
          { orgId: h.org.id, tokenId: 'test', scopes: ['write'], actor: TEST_ACTOR },
          { email: 'rolled-back@example.com' },
        );
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    // Failing at the commit, after the events were written: they roll back with the change.
    await assert.rejects(
      inTransaction(h.database.db, TEST_ACTOR, async (trx) => {
        await usersService(trx, DEFAULT_PASSWORD_POLICY).create(
          { orgId: h.org.id, tokenId: 'test', scopes: ['write'], actor: TEST_ACTOR },
          { email: 'failed-commit@example.com' },
        );
        beforeCommit(trx, () => Promise.reject(new Error('failed at the commit')));
      }),
      /failed at the commit/,
    );
    // An event cannot be recorded where no unit of work would write it with its change: it does not
    // compile, and a handle cast past the type check is refused all the same.
    const event = ['user.deleted', (await h.get(`users/${userId}`)).json<User>()] as const;
    // @ts-expect-error A database handle is no unit of work.
    assert.throws(() => recordEvent(h.database.db, h.org.id, ...event), /unit of work/);
    await assert.rejects(
      h.database.db.transaction().execute(async (trx) =>
        // @ts-expect-error A transaction of Kysely's is no unit of work either.
        recordEvent(trx, h.org.id, ...event),
      ),
      /unit of work/,
    );
    assert.equal(await last(), afterCreate);
    assert.deepEqual(
      (await eventsAfter(h, start)).map((event) => event.type),
      ['user.created'],
    );
    for (const email of ['rolled-back@example.com', 'failed-commit@example.com'])
      assert.equal((await h.get('users', { query: { email } })).json().results.length, 0, email);
  });

  it('a nested unit of work that fails is rolled back to its savepoint, its event forgotten, and the outer one goes on', async () => {
    const start = await last();
    const caller = { orgId: h.org.id, tokenId: 'test', scopes: ['write'] as const, actor: TEST_ACTOR };
    const [kept, twin, after] = ['kept', 'twin', 'after'].map((name) => `${unique(name).replace(/\W/g, '')}@example.com`) as [string, string, string];
    await inTransaction(h.database.db, TEST_ACTOR, async (trx) => {
      const users = usersService(trx, DEFAULT_PASSWORD_POLICY);
      await users.create(caller, { email: kept });
      // Its own unit, nested: its user is written and its event recorded before the failure.
      await assert.rejects(
        inTransaction(trx, TEST_ACTOR, async (inner) => {
          await usersService(inner, DEFAULT_PASSWORD_POLICY).create(caller, { email: twin });
          throw new Error('the nested unit fails');
        }),
        /the nested unit fails/,
      );
      // A unique violation inside: on PostgreSQL the transaction takes further statements all the same.
      const refused = await users.create(caller, { email: kept }).catch((error: unknown) => error);
      assert.ok(refused instanceof Conflict, String(refused));
      assert.deepEqual(refused.properties, ['email']);
      await users.create(caller, { email: after });
    });
    const events = await eventsAfter(h, start);
    assert.deepEqual(
      events.map((event) => [event.type, event.data.email]),
      [
        ['user.created', kept],
        ['user.created', after],
      ],
    );
    for (const [email, count] of [
      [kept, 1],
      [twin, 0],
      [after, 1],
    ] as const)
      assert.equal((await h.get('users', { query: { email } })).json().results.length, count, email);
  });

  it('forgets events older than the retention period', async () => {
    await createUser(h);
    const events = await eventsAfter(h);
    const old = events.slice(0, 2).map((event) => event.id);
    await h.database.db.updateTable('events').set({ created_date: '2001-01-01T00:00:00Z' }).where('id', 'in', old).execute();
    await pruneEvents(h.database.db, 30);
    assert.deepEqual(
      (await eventsAfter(h)).map((event) => event.id),
      events.slice(2).map((event) => event.id),
    );
    assert.equal((await h.get('events', { query: { after: old[0]! } })).statusCode, 400);
  });
});
