import { batches } from '../../db/batches.js';
import { changeTime, type UnitOfWork } from '../../db/unit-of-work.js';
import { recordUpdate } from '../../events/outbox.js';
import { isId } from '../../lib/ids.js';
import { tagsColumn, tagsOf, withTag, withoutTag } from '../../lib/tags.js';
import type { VisibleUserRow } from '../../resources/users/users.repository.js';
import { toResponse } from '../../resources/users/users.service.js';
import { scimUsersRepository } from '../users/scim-users.repository.js';

/** A change of one tag on many users: a group gaining or losing members, or being renamed. */
interface TagChange {
  add?: string;
  remove?: string;
}

/** Users read and re-tagged per statement when a whole group changes (renamed, emptied, deleted). */
const BATCH = 500;

/**
 * Group membership, which is a tag on the members, changed in the unit of work `trx`. Users are
 * locked and read a batch at a time; those already as asked are left untouched (their updatedDate
 * too), and each user whose tags change gets a `user.updated` event with its previous tags. The
 * users given the same tags column are written in one statement, and both representations an
 * event needs come from the row read, so a group of thousands costs a few statements a batch.
 */
export function groupMembership(trx: UnitOfWork, orgId: string) {
  const users = scimUsersRepository(trx);

  async function apply(rows: readonly VisibleUserRow[], change: TagChange): Promise<void> {
    const updatedDate = changeTime(trx);
    const retagged = new Map<string | null, string[]>();
    for (const row of rows) {
      let tags = tagsOf(row.tags) ?? [];
      if (change.remove !== undefined) tags = withoutTag(tags, change.remove);
      if (change.add !== undefined) tags = withTag(tags, change.add);
      const column = tagsColumn(tags);
      if (column === row.tags) continue;
      let ids = retagged.get(column);
      if (!ids) retagged.set(column, (ids = []));
      ids.push(row.id);
      recordUpdate(trx, orgId, 'user.updated', toResponse(row), toResponse({ ...row, tags: column, updated_date: updatedDate }));
    }
    for (const [column, ids] of retagged) await users.setTags(orgId, ids, column, updatedDate);
  }

  return {
    /** Applies `change` to each listed user; returns the listed ids that name no user. */
    async change(ids: readonly string[], change: TagChange): Promise<string[]> {
      const found = new Set<string>();
      // Locked in id order across batches too, as other writes of several users lock them, so that none deadlock.
      for (const batch of batches([...new Set(ids.filter(isId))].sort())) {
        const rows = await users.lock(orgId, batch);
        for (const row of rows) found.add(row.id);
        await apply(rows, change);
      }
      return ids.filter((id) => !found.has(id));
    },

    /** Applies `change` to every user carrying `tag` but those in `keep`, a batch at a time. */
    async changeAll(tag: string, change: TagChange, keep: ReadonlySet<string> = new Set()): Promise<void> {
      for (let after = ''; ;) {
        const rows = await users.lockWithTag(orgId, tag, after, BATCH);
        if (rows.length === 0) return;
        await apply(
          rows.filter((row) => !keep.has(row.id)),
          change,
        );
        after = rows.at(-1)!.id;
      }
    },
  };
}
