import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Conflict, Invalid, NotFound, Refused } from '../../src/lib/domain-errors.js';
import { userfieldCategoriesService } from '../../src/resources/userfield-categories/userfield-categories.service.js';
import { userfieldsService } from '../../src/resources/userfields/userfields.service.js';
import { unique } from '../helpers/collections.js';
import { forEachEngineService } from '../helpers/services.js';

const nameTaken = (error: unknown) => error instanceof Conflict && error.properties.join() === 'name';

forEachEngineService('userfield categories service', (bed) => {
  const categories = () => userfieldCategoriesService(bed.db);

  it('refuses a name taken in the organization as a conflict, on create and on rename alike, whatever its case', async () => {
    const taken = unique('Taken');
    await categories().create(bed.caller, { name: taken, type: 'public' });
    await assert.rejects(categories().create(bed.caller, { name: taken.toUpperCase(), type: 'private' }), nameTaken);

    const id = await categories().create(bed.caller, { name: unique('Renamed'), type: 'private' });
    await assert.rejects(categories().update(bed.caller, id, { name: taken.toLowerCase() }), nameTaken);
    // Its own name in another case is no conflict.
    await categories().update(bed.caller, id, { name: 'Own Name' });
    await categories().update(bed.caller, id, { name: 'OWN name' });
    assert.equal((await categories().get(bed.caller, id)).name, 'OWN name');

    const other = await bed.newOrganization('Other categories');
    assert.ok(await categories().create(other, { name: taken, type: 'public' }), 'names are unique per organization');
  });

  it('never changes the type: the same one is accepted, another is invalid', async () => {
    const id = await categories().create(bed.caller, { name: unique('Typed'), type: 'public' });
    await categories().update(bed.caller, id, { type: 'public' });
    await assert.rejects(
      categories().update(bed.caller, id, { type: 'private' }),
      (error) => error instanceof Invalid && /cannot be changed/.test(error.fieldErrors.type!),
    );
    assert.equal((await categories().get(bed.caller, id)).type, 'public');
  });

  it('refuses to delete a category that holds userfields, and deletes it once empty', async () => {
    const id = await categories().create(bed.caller, { name: unique('Holding'), type: 'private' });
    const fieldId = await userfieldsService(bed.db).create(bed.caller, { type: 'text', name: unique('Field'), categoryId: id });
    await assert.rejects(categories().delete(bed.caller, id), Refused);
    await userfieldsService(bed.db).delete(bed.caller, fieldId);
    await categories().delete(bed.caller, id);
    await assert.rejects(categories().get(bed.caller, id), NotFound);
  });

  it('finds no category of another organization, to read, change or delete', async () => {
    const id = await categories().create(bed.caller, { name: unique('Ours'), type: 'public' });
    const other = await bed.newOrganization('Other tenant');
    await assert.rejects(categories().get(other, id), NotFound);
    await assert.rejects(categories().update(other, id, { name: unique('Theirs') }), NotFound);
    await assert.rejects(categories().delete(other, id), NotFound);
    assert.ok(await categories().get(bed.caller, id));
  });

  it('keeps each type a dense order: an insert at orderIndex shifts the later ones, beyond the end is the end', async () => {
    const other = await bed.newOrganization('Ordering');
    const ids = [];
    for (const name of ['A', 'B', 'C']) ids.push(await categories().create(other, { name, type: 'public' }));
    const first = await categories().create(other, { name: 'First', type: 'public', orderIndex: 0 });
    const last = await categories().create(other, { name: 'Last', type: 'public', orderIndex: 999 });
    await categories().update(other, ids[2]!, { orderIndex: 1 });
    await categories().delete(other, ids[0]!);
    const listed = await categories().list(other, { type: 'public' }, { limit: 100, offset: 0 });
    assert.deepEqual(
      listed.map((category) => [category.id, category.orderIndex]),
      [first, ids[2], ids[1], last].map((id, index) => [id, index]),
    );
  });
});
