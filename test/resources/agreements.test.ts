import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as courses from '../../src/db/migrations/0003-courses.js';
import { newId } from '../../src/lib/ids.js';
import { STANDARD_AGREEMENT } from '../../src/resources/agreements/standard-agreement.js';
import { forEachEngine } from '../helpers/harness.js';
import { backdated } from '../helpers/actors.js';

const NOT_FOUND = { errors: ['No resource exists with the given id.'] };
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

forEachEngine('agreements', (h) => {
  it('every organization starts with the standard agreement only', async () => {
    const org = await h.createOrganization('Fresh agreements');
    const response = await h.get('agreements', { token: org.token });
    assert.equal(response.statusCode, 200);
    const { results } = response.json();
    assert.deepEqual(Object.keys(response.json()), ['results']);
    assert.equal(results.length, 1);
    const [standard] = results;
    assert.deepEqual(Object.keys(standard).sort(), ['createdDate', 'required', 'text', 'title', 'type']);
    assert.equal(standard.type, 'standard');
    assert.equal(standard.required, true);
    assert.equal(standard.title, STANDARD_AGREEMENT.title);
    assert.equal(standard.text, STANDARD_AGREEMENT.text);
    assert.match(standard.createdDate, TIMESTAMP);
    assert.deepEqual((await h.get('agreements/standard', { token: org.token })).json(), standard);
  });

  it('answers 404 for an undefined or unknown type', async () => {
    const org = await h.createOrganization('Undefined custom');
    for (const type of ['custom', 'other', 'Standard']) {
      const response = await h.get(`agreements/${type}`, { token: org.token });
      assert.equal(response.statusCode, 404, type);
      assert.deepEqual(response.json(), NOT_FOUND);
    }
    assert.equal((await h.put('agreements/other', { title: 'T', text: 'X' }, { token: org.token })).statusCode, 404);
  });

  it('defines the custom agreement: title and text required the first time, always required', async () => {
    const org = await h.createOrganization('Custom agreement');
    const as = { token: org.token };
    const missing = await h.put('agreements/custom', { required: false }, as);
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(missing.json().fieldErrors, { title: 'required', text: 'required', required: 'the custom agreement is always required' });
    assert.equal((await h.get('agreements/custom', as)).statusCode, 404);

    assert.equal((await h.put('agreements/custom', { title: 'Code of conduct', text: 'Be kind.' }, as)).statusCode, 204);
    const custom = (await h.get('agreements/custom', as)).json();
    assert.deepEqual(custom, { type: 'custom', title: 'Code of conduct', text: 'Be kind.', required: true, createdDate: custom.createdDate });
    assert.deepEqual(
      (await h.get('agreements', as)).json().results.map((a: { type: string }) => a.type),
      ['standard', 'custom'],
    );

    const notOptional = await h.put('agreements/custom', { required: false }, as);
    assert.equal(notOptional.statusCode, 400);
    assert.deepEqual(notOptional.json().fieldErrors, { required: 'the custom agreement is always required' });
    assert.equal((await h.put('agreements/custom', { text: 'Be kind, always.', type: 'standard', createdDate: 'x' }, as)).statusCode, 204);
    const revised = (await h.get('agreements/custom', as)).json();
    assert.deepEqual(revised, { ...custom, text: 'Be kind, always.', updatedDate: revised.updatedDate });
    assert.match(revised.updatedDate, TIMESTAMP);
  });

  it('revises the standard agreement partially; it may be made optional', async () => {
    const org = await h.createOrganization('Standard revision');
    const as = { token: org.token };
    const before = (await h.get('agreements/standard', as)).json();
    assert.equal((await h.put('agreements/standard', { title: 'Our terms', required: false }, as)).statusCode, 204);
    const after = (await h.get('agreements/standard', as)).json();
    assert.deepEqual(after, { ...before, title: 'Our terms', required: false, updatedDate: after.updatedDate });
    assert.equal((await h.put('agreements/standard', {}, as)).statusCode, 204);
    assert.deepEqual((await h.get('agreements/standard', as)).json(), after);
    const bad = await h.put('agreements/standard', { title: '', text: 7, required: 'yes', version: 2 }, as);
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(Object.keys(bad.json().fieldErrors).sort(), ['required', 'text', 'title', 'version']);
  });

  it('pages both agreement lists like every other collection', async () => {
    const org = await h.createOrganization('Paged agreements');
    const as = { token: org.token };
    assert.equal((await h.put('agreements/custom', { title: 'House rules', text: 'Be kind.' }, as)).statusCode, 204);
    const user = await h.create('users', { email: 'paged@example.com' }, as);
    for (const path of ['agreements', `users/${user}/agreements`]) {
      const first = await h.get(path, { ...as, query: { limit: '1' } });
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(
        first.json().results.map((a: { type: string }) => a.type),
        ['standard'],
      );
      assert.match(first.json().next, /limit=1&offset=1$/);
      const second = await h.get(path, { ...as, query: { limit: '1', offset: '1' } });
      assert.deepEqual(
        second.json().results.map((a: { type: string }) => a.type),
        ['custom'],
      );
      assert.equal(second.json().next, undefined);
      assert.match(second.json().prev, /limit=1&offset=0$/);
      assert.deepEqual((await h.get(path, { ...as, query: { offset: '2' } })).json().results, []);
      const refused = await h.get(path, { ...as, query: { limit: '0', offset: '-1' } });
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(Object.keys(refused.json().fieldErrors).sort(), ['limit', 'offset']);
    }
    assert.equal((await h.get(`users/${'0'.repeat(32)}/agreements`, { ...as, query: { limit: '1' } })).statusCode, 404);
  });

  it("records a user's agreement with the text agreed to, which survives revisions", async () => {
    const org = await h.createOrganization('User agreements');
    const as = { token: org.token };
    const ada = await h.create('users', { email: 'ada@example.com' }, as);
    const bob = await h.create('users', { email: 'bob@example.com' }, as);
    const initial = (await h.get(`users/${ada}/agreements`, as)).json();
    const standard = (await h.get('agreements/standard', as)).json();
    assert.deepEqual(initial, {
      results: [{ type: 'standard', title: standard.title, text: standard.text, createdDate: standard.createdDate, agreed: false }],
    });

    assert.equal((await h.put('agreements/custom', { title: 'House rules', text: 'Version 1' }, as)).statusCode, 204);
    const agree = await h.put(`users/${ada}/agreements/custom`, { agreed: true }, as);
    assert.equal(agree.statusCode, 204);
    assert.equal(agree.body, '');
    const agreed = (await h.get(`users/${ada}/agreements/custom`, as)).json();
    assert.equal(agreed.agreed, true);
    assert.equal(agreed.text, 'Version 1');
    assert.match(agreed.agreedDate, TIMESTAMP);

    assert.equal((await h.put('agreements/custom', { title: 'House rules v2', text: 'Version 2' }, as)).statusCode, 204);
    assert.deepEqual((await h.get(`users/${ada}/agreements/custom`, as)).json(), agreed);
    const bobs = (await h.get(`users/${bob}/agreements`, as)).json().results;
    assert.deepEqual(
      bobs.map((a: { type: string; title: string; text: string; agreed: boolean }) => [a.type, a.title, a.text, a.agreed]),
      [
        ['standard', standard.title, standard.text, false],
        ['custom', 'House rules v2', 'Version 2', false],
      ],
    );

    assert.equal((await h.put(`users/${ada}/agreements/custom`, { agreed: true }, as)).statusCode, 204);
    assert.equal((await h.get(`users/${ada}/agreements/custom`, as)).json().text, 'Version 2', 'agreeing again agrees to the current text');
    const withdrawn = await h.put(`users/${ada}/agreements/custom`, { ...agreed, agreed: false }, as);
    assert.equal(withdrawn.statusCode, 204);
    const now = (await h.get(`users/${ada}/agreements/custom`, as)).json();
    assert.equal(now.agreed, false);
    assert.equal(now.agreedDate, undefined);
  });

  it('refuses a blank title or text, and changes nothing', async () => {
    const org = await h.createOrganization('Blank agreements');
    const as = { token: org.token };
    const standard = (await h.get('agreements/standard', as)).json();
    const response = await h.put('agreements/standard', { title: '   ', text: '\n\t' }, as);
    assert.equal(response.statusCode, 400);
    assert.deepEqual(Object.keys(response.json().fieldErrors).sort(), ['text', 'title']);
    assert.deepEqual((await h.get('agreements/standard', as)).json(), standard);
    assert.equal((await h.put('agreements/custom', { title: ' ', text: 'Rules' }, as)).statusCode, 400);
    assert.equal((await h.get('agreements/custom', as)).statusCode, 404);
  });

  it('answers 204 and changes nothing when an agreement or a user agreement is PUT back as it was read', async () => {
    const org = await h.createOrganization('Round trips');
    const as = { token: org.token };
    const user = await h.create('users', { email: 'round@example.com' }, as);
    assert.equal((await h.put(`users/${user}/agreements/standard`, { agreed: true }, as)).statusCode, 204);
    // Dates in the past, so that a rewrite within the same second could not hide.
    const past = backdated('2001-02-03T04:05:06Z');
    await h.database.db.updateTable('agreements').set({ updated_date: past }).where('org_id', '=', org.id).execute();
    await h.database.db.updateTable('user_agreements').set({ agreed_date: past }).where('org_id', '=', org.id).execute();

    const standard = (await h.get('agreements/standard', as)).json();
    assert.equal((await h.put('agreements/standard', standard, as)).statusCode, 204);
    assert.deepEqual((await h.get('agreements/standard', as)).json(), standard);

    const agreement = (await h.get(`users/${user}/agreements/standard`, as)).json();
    assert.equal(agreement.agreedDate, past);
    assert.equal((await h.put(`users/${user}/agreements/standard`, agreement, as)).statusCode, 204);
    assert.deepEqual((await h.get(`users/${user}/agreements/standard`, as)).json(), agreement);

    assert.equal((await h.put('agreements/standard', { text: 'Revised terms' }, as)).statusCode, 204);
    assert.notEqual((await h.get('agreements/standard', as)).json().updatedDate, past);
    assert.equal((await h.put(`users/${user}/agreements/standard`, { agreed: true }, as)).statusCode, 204);
    const renewed = (await h.get(`users/${user}/agreements/standard`, as)).json();
    assert.equal(renewed.text, 'Revised terms', 'agreeing after a revision agrees to the current text');
    assert.notEqual(renewed.agreedDate, past);
  });

  it('validates the user agreement body', async () => {
    const user = await h.create('users', { email: 'body@example.com' });
    for (const body of [{}, { agreed: 'yes' }, { agreed: true, signature: 'x' }]) {
      const response = await h.put(`users/${user}/agreements/standard`, body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.ok(Object.keys(response.json().fieldErrors).length > 0);
    }
  });

  it('answers 404 for unknown or foreign users and for undefined types', async () => {
    const other = await h.createOrganization('Other agreements');
    const foreign = await h.create('users', { email: 'foreign@example.com' }, { token: other.token });
    const own = await h.create('users', { email: 'own-agreements@example.com' });
    for (const user of [foreign, '0'.repeat(32), 'not-an-id']) {
      for (const response of [
        await h.get(`users/${user}/agreements`),
        await h.get(`users/${user}/agreements/standard`),
        await h.put(`users/${user}/agreements/standard`, { agreed: true }),
      ]) {
        assert.equal(response.statusCode, 404, user);
        assert.deepEqual(response.json(), NOT_FOUND);
      }
    }
    for (const type of ['custom', 'other']) {
      assert.equal((await h.get(`users/${own}/agreements/${type}`)).statusCode, 404);
      assert.equal((await h.put(`users/${own}/agreements/${type}`, { agreed: true })).statusCode, 404);
    }
    assert.equal((await h.get(`users/${foreign}/agreements/standard`, { token: other.token })).json().agreed, false);
  });

  it('keeps each organization to its own agreements', async () => {
    const first = await h.createOrganization('First tenant');
    const second = await h.createOrganization('Second tenant');
    assert.equal((await h.put('agreements/custom', { title: 'Only first', text: 'First' }, { token: first.token })).statusCode, 204);
    assert.equal((await h.put('agreements/standard', { title: 'First standard' }, { token: first.token })).statusCode, 204);
    assert.equal((await h.get('agreements/custom', { token: second.token })).statusCode, 404);
    assert.equal((await h.get('agreements/standard', { token: second.token })).json().title, STANDARD_AGREEMENT.title);
  });
});

forEachEngine('agreements migration', (h) => {
  it('gives organizations that existed before it their standard agreement', async () => {
    const db = h.database.db;
    await courses.down(db);
    const orgIds = [newId(), newId()];
    await db
      .insertInto('organizations')
      .values(orgIds.map((id) => ({ id, name: `Existing ${id}`, created_date: '2020-01-01T00:00:00Z' })))
      .execute();
    await courses.up(db);
    const rows = await db.selectFrom('agreements').select(['org_id', 'type', 'title', 'required']).where('org_id', 'in', orgIds).execute();
    assert.deepEqual(
      rows.map((row) => ({ ...row, required: Boolean(row.required) })).sort((a, b) => a.org_id.localeCompare(b.org_id)),
      orgIds.sort().map((id) => ({ org_id: id, type: 'standard', title: STANDARD_AGREEMENT.title, required: true })),
    );
  });
});
