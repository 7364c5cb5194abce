import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Filter } from 'scim2-parse-filter';
import { hasWord, lowerCase, wordsOf } from '../../db/filters.js';
import { forUpdate } from '../../db/locking.js';
import { changeTime, inTransaction, type UnitOfWork } from '../../db/unit-of-work.js';
import type { Database } from '../../db/schema.js';
import { uniqueViolation } from '../../db/database.js';
import { Conflict, Invalid, Malformed, NotFound } from '../../lib/domain-errors.js';
import { isId, newId } from '../../lib/ids.js';
import type { Caller } from '../../auth/caller.js';
import { canonicalDocument, projectDocument, resourceSchema, type ScimDocument } from '../documents.js';
import { dateTimeOperand, FALSE, parseFilter, textOperand, translateFilter, TRUE, valuesFor, type Condition, type Operand } from '../filter.js';
import { listResponse, type ListQuery, type ListResponse } from '../list.js';
import { formatPath, parsePath, readPatchRequest, type PatchOperation } from '../patch.js';
import { GROUP_ATTRIBUTES, GROUP_SCHEMA } from '../schemas.js';
import { checkVersion, versionOf } from '../versions.js';
import { scimUsersRepository } from '../users/scim-users.repository.js';
import { groupMembership } from './membership.js';
import { scimGroupsRepository, type ScimGroupRow } from './scim-groups.repository.js';

export const GROUP_RESOURCE = resourceSchema(GROUP_SCHEMA, GROUP_ATTRIBUTES);

const MAX_DISPLAY_NAME = 255;
const READ_ONLY = new Set(['id', 'meta', 'schemas']);

/** The tag of a group: its display name with each run of spaces and commas (which split v5 tags) made one `_`. */
function groupTag(displayName: string): string {
  return displayName
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean)
    .join('_');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function displayNameOf(value: unknown): string {
  if (typeof value !== 'string' || groupTag(value) === '') throw new Invalid({ displayName: 'required, a name with more than spaces and commas' });
  if (value.length > MAX_DISPLAY_NAME) throw new Invalid({ displayName: `at most ${MAX_DISPLAY_NAME} characters` });
  return value;
}

function externalIdOf(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new Invalid({ externalId: 'must be a string' });
  return value;
}

/** The user ids of a members value: `[{"value": id}, ...]` (a single object is taken as a list of one). */
function memberIds(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list.map((member) => {
    if (!isObject(member) || typeof member.value !== 'string') throw new Invalid({ members: 'must be a list of {"value": user id}' });
    return member.value;
  });
}

/** A members filter in a PATCH path (`members[value eq "id"]`, `or` of several): the ids it names. */
function idsInMembersFilter(text: string): string[] {
  const filter = parseFilter(text);
  const ids = valuesFor(filter, (path) => path.toLowerCase() === 'value');
  if (ids.length === 0) throw new Malformed('path', `members[${text}]: name members with value eq "<user id>"`);
  return ids;
}

interface Context {
  caller: Caller;
  base: string;
}

/** A member as a group shows it, with the tags that make it one. */
type Member = Awaited<ReturnType<ReturnType<typeof scimUsersRepository>['members']>>[number];

/**
 * Groups as tags: a group's members are the users carrying its tag, so v5 clients can filter users
 * on it (`GET /users?tags=Sales_EMEA`) and tags given through v5 show as membership here. Membership
 * changes (`groupMembership`) change users in batches, never all loaded at once, each with its event.
 */
export function scimGroupsService(db: Kysely<Database>) {
  const groups = scimGroupsRepository(db);

  /**
   * The members of each group, in creation order, read in one statement however many groups there are:
   * for one group the users carrying its tag (matched in SQL, 3 to 4 times faster than reading every
   * tagged user of an organization of 10,000), for more every user with tags, once (each tag matched in
   * SQL costs a pass over them). Each is then given to the groups whose tag is one of its words, as
   * `hasWord` matches them.
   */
  async function membersOf(orgId: string, rows: readonly ScimGroupRow[], executor: Kysely<Database>): Promise<Member[][]> {
    const lists = rows.map((): Member[] => []);
    if (rows.length === 0) return lists;
    const listsByWord = new Map<string, Member[][]>();
    for (const [n, row] of rows.entries()) {
      const word = lowerCase(row.tag);
      listsByWord.set(word, [...(listsByWord.get(word) ?? []), lists[n]!]);
    }
    const tagged = rows.length === 1 ? hasWord('users.tags', rows[0]!.tag) : TRUE;
    for (const user of await scimUsersRepository(executor).members(orgId, sql<SqlBool>`(users.tags is not null and ${tagged})`)) {
      for (const word of new Set(wordsOf(user.tags!))) for (const list of listsByWord.get(word) ?? []) list.push(user);
    }
    return lists;
  }

  /**
   * A group as stored, with its members. Its version is that of the whole group, members included,
   * whatever the request shows of it, so that a read without members gives the ETag a write's If-Match
   * must name; members are left out when `withMembers` is false.
   */
  function groupDocument(ctx: Context, row: ScimGroupRow, members: readonly Member[], withMembers: boolean): ScimDocument {
    const document: ScimDocument = { schemas: [GROUP_SCHEMA], id: row.id };
    if (row.external_id) document.externalId = row.external_id;
    document.displayName = row.display_name;
    document.members = members.map((member) => ({
      value: member.id,
      display: member.username ?? member.email,
      $ref: `${ctx.base}/Users/${member.id}`,
      type: 'User',
    }));
    const meta = { resourceType: 'Group', created: row.created_date, lastModified: row.updated_date, location: `${ctx.base}/Groups/${row.id}` };
    document.meta = meta;
    document.meta = { ...meta, version: versionOf(document) };
    if (!withMembers) delete document.members;
    return document;
  }

  /** A group as stored, read in `executor` (the unit of work when it holds the group locked). */
  async function render(ctx: Context, row: ScimGroupRow, withMembers: boolean, executor: Kysely<Database> = db): Promise<ScimDocument> {
    const [members] = await membersOf(ctx.caller.orgId, [row], executor);
    return groupDocument(ctx, row, members!, withMembers);
  }

  /** Whether `members` is among what the client asked to see. */
  function membersWanted(attributes?: string, excluded?: string): boolean {
    const names = (list?: string) =>
      (list ?? '').split(',').map((name) =>
        name
          .trim()
          .toLowerCase()
          .replace(/^urn:.*:group:/, ''),
      );
    if (attributes?.trim()) return names(attributes).some((name) => name === 'members' || name.startsWith('members.'));
    return !names(excluded).includes('members');
  }

  async function groupCondition(orgId: string, filter: Filter): Promise<Condition> {
    const isMember = (path: string, parent?: string) => {
      const full = (parent ? `${parent}.${path}` : path).toLowerCase();
      return full === 'members' || full === 'members.value';
    };
    const userIds = valuesFor(filter, isMember).filter(isId);
    const userTags = new Map((await scimUsersRepository(db).tags(orgId, userIds)).map((row) => [row.id, row.tags]));
    const member: Operand = {
      compare(op, value) {
        if (op === 'pr') return TRUE;
        const tags = typeof value === 'string' ? userTags.get(value) : undefined;
        const keys = tags ? tags.toLowerCase().split(' ') : [];
        const holds = keys.length === 0 ? FALSE : sql<SqlBool>`(scim_groups.tag_key in (${sql.join(keys)}))`;
        if (op === 'eq') return holds;
        if (op === 'ne') return sql<SqlBool>`(not ${holds})`;
        throw new Malformed('filter', 'members compares with eq or ne and a user id');
      },
    };
    const operands: Record<string, Operand> = {
      id: textOperand(sql.ref('scim_groups.id'), true),
      externalid: textOperand(sql.ref('scim_groups.external_id'), true),
      displayname: textOperand(sql.ref('scim_groups.display_name'), false),
      'meta.created': dateTimeOperand(sql.ref('scim_groups.created_date')),
      'meta.lastmodified': dateTimeOperand(sql.ref('scim_groups.updated_date')),
      members: member,
      'members.value': member,
    };
    return translateFilter(filter, (path, parent) => {
      const full = (parent ? `${parent}.${path}` : path).replace(new RegExp(`^${GROUP_SCHEMA}:`, 'i'), '');
      return operands[full.toLowerCase()];
    });
  }

  /** Locks the group row for the rest of the transaction; 404 when the organization has no such group, 412 when `ifMatch` names another version. */
  async function lock(ctx: Context, trx: UnitOfWork, id: string, ifMatch?: string): Promise<ScimGroupRow> {
    const orgId = ctx.caller.orgId;
    const row = isId(id)
      ? await forUpdate(trx, trx.selectFrom('scim_groups').selectAll().where('org_id', '=', orgId).where('id', '=', id)).executeTakeFirst()
      : undefined;
    if (!row) throw new NotFound(`Group ${id}`);
    if (ifMatch !== undefined) checkVersion(await render(ctx, row, false, trx), ifMatch);
    return row;
  }

  /** Runs a write; a lost race on a group tag becomes the same 409 as the check before it. */
  async function write<T>(ctx: Context, work: (trx: UnitOfWork) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(db, ctx.caller.actor, work);
    } catch (error) {
      if (uniqueViolation(error) !== undefined) throw new Conflict(['displayName'], 'another group already has this name as its tag');
      throw error;
    }
  }

  async function checkTagFree(trx: UnitOfWork, orgId: string, tag: string, exceptId?: string): Promise<void> {
    const holder = await trx
      .selectFrom('scim_groups')
      .select(['id', 'display_name'])
      .where('org_id', '=', orgId)
      .where('tag_key', '=', tag.toLowerCase())
      .executeTakeFirst();
    if (holder && holder.id !== exceptId) {
      throw new Conflict(['displayName'], `the group "${holder.display_name}" already has the tag ${tag}`);
    }
  }

  /** Adds the tag to the users; unknown ids refuse the whole request. */
  async function addMembers(trx: UnitOfWork, caller: Caller, tag: string, ids: readonly string[]): Promise<void> {
    const missing = await groupMembership(trx, caller.orgId).change(ids, { add: tag });
    if (missing.length > 0) throw new Invalid({ members: `no user has the id ${missing.slice(0, 10).join(', ')}` });
  }

  async function removeMembers(trx: UnitOfWork, caller: Caller, tag: string, ids: readonly string[]): Promise<void> {
    await groupMembership(trx, caller.orgId).change(ids, { remove: tag });
  }

  async function removeAllMembers(trx: UnitOfWork, caller: Caller, tag: string): Promise<void> {
    await groupMembership(trx, caller.orgId).changeAll(tag, { remove: tag });
  }

  async function rename(trx: UnitOfWork, caller: Caller, row: ScimGroupRow, displayName: string): Promise<ScimGroupRow> {
    const tag = groupTag(displayName);
    if (tag !== row.tag) {
      await checkTagFree(trx, caller.orgId, tag, row.id);
      await groupMembership(trx, caller.orgId).changeAll(row.tag, { remove: row.tag, add: tag });
    }
    return { ...row, display_name: displayName, tag, tag_key: tag.toLowerCase() };
  }

  async function replaceMembers(trx: UnitOfWork, caller: Caller, tag: string, ids: readonly string[]): Promise<void> {
    await groupMembership(trx, caller.orgId).changeAll(tag, { remove: tag }, new Set(ids));
    await addMembers(trx, caller, tag, ids);
  }

  async function save(trx: UnitOfWork, before: ScimGroupRow, after: ScimGroupRow): Promise<void> {
    if (after.display_name === before.display_name && after.external_id === before.external_id && after.tag === before.tag) return;
    await scimGroupsRepository(trx).update(after.org_id, after.id, {
      display_name: after.display_name,
      tag: after.tag,
      tag_key: after.tag_key,
      external_id: after.external_id,
      updated_date: changeTime(trx),
    });
  }

  /** One PATCH operation on a locked group; returns the group as it now is. */
  async function applyOperation(trx: UnitOfWork, caller: Caller, row: ScimGroupRow, operation: PatchOperation): Promise<ScimGroupRow> {
    if (operation.path === undefined) {
      let result = row;
      for (const [key, value] of Object.entries(operation.value as Record<string, unknown>)) {
        // Okta sends the group's id back beside its new name; read-only attributes are skipped here.
        if (READ_ONLY.has(parsePath(key, GROUP_RESOURCE).attribute)) continue;
        result = await applyOperation(trx, caller, result, { op: operation.op, path: key, value });
      }
      return result;
    }
    const parts = parsePath(operation.path, GROUP_RESOURCE);
    const path = formatPath(parts);
    switch (parts.attribute) {
      case 'id':
      case 'meta':
      case 'schemas':
        throw new Malformed('mutability', `${path} is read-only`);
      case 'displayName':
        if (operation.op === 'remove') throw new Invalid({ displayName: 'required, a group keeps its name' });
        return rename(trx, caller, row, displayNameOf(operation.value));
      case 'externalId':
        return { ...row, external_id: operation.op === 'remove' ? null : externalIdOf(operation.value) };
      case 'members': {
        if (parts.sub !== undefined) throw new Malformed('path', `${path}: change members as a whole or with members[value eq "<id>"]`);
        if (parts.filter !== undefined) {
          if (operation.op !== 'remove') throw new Malformed('path', `${path}: a members filter only selects members to remove`);
          await removeMembers(trx, caller, row.tag, idsInMembersFilter(parts.filter));
        } else if (operation.op === 'add') {
          await addMembers(trx, caller, row.tag, memberIds(operation.value));
        } else if (operation.op === 'replace') {
          await replaceMembers(trx, caller, row.tag, memberIds(operation.value));
        } else if ('value' in operation && operation.value !== undefined && operation.value !== null) {
          await removeMembers(trx, caller, row.tag, memberIds(operation.value));
        } else {
          await removeAllMembers(trx, caller, row.tag);
        }
        return row;
      }
      default:
        return row; // attributes groups do not have are ignored, as in users
    }
  }

  return {
    context(caller: Caller, base: string): Context {
      return { caller, base };
    },

    async list(ctx: Context, query: ListQuery): Promise<ListResponse> {
      const { orgId } = ctx.caller;
      const condition = query.filter === undefined ? TRUE : await groupCondition(orgId, parseFilter(query.filter));
      const total = await groups.count(orgId, condition);
      const rows = query.count === 0 ? [] : await groups.list(orgId, condition, query.startIndex - 1, query.count);
      const withMembers = membersWanted(query.attributes, query.excludedAttributes);
      const members = await membersOf(orgId, rows, db);
      const resources = rows.map((row, n) =>
        projectDocument(groupDocument(ctx, row, members[n]!, withMembers), GROUP_RESOURCE, query.attributes, query.excludedAttributes),
      );
      return listResponse(resources, total, query.startIndex);
    },

    /** The group, with its members when `attributes`/`excludedAttributes` ask for them (still to be projected). */
    async get(ctx: Context, id: string, attributes?: string, excluded?: string): Promise<ScimDocument> {
      const row = isId(id) ? await groups.find(ctx.caller.orgId, id) : undefined;
      if (!row) throw new NotFound(`Group ${id}`);
      return render(ctx, row, membersWanted(attributes, excluded));
    },

    async create(ctx: Context, body: unknown): Promise<ScimDocument> {
      if (!isObject(body)) throw new Malformed('body', 'The body must be a Group object');
      const document = canonicalDocument(body, GROUP_RESOURCE);
      const displayName = displayNameOf(document.displayName);
      const members = memberIds(document.members);
      const tag = groupTag(displayName);
      const row = await write(ctx, async (trx) => {
        const at = changeTime(trx);
        const created: ScimGroupRow = {
          org_id: ctx.caller.orgId,
          id: newId(),
          display_name: displayName,
          tag,
          tag_key: tag.toLowerCase(),
          external_id: externalIdOf(document.externalId),
          created_date: at,
          updated_date: at,
        };
        await checkTagFree(trx, created.org_id, tag);
        await scimGroupsRepository(trx).insert(created);
        await addMembers(trx, ctx.caller, tag, members);
        return created;
      });
      return render(ctx, row, true);
    },

    /** PUT: name and externalId replaced; members replaced when sent (a PUT without members keeps them, so a rename loses no one). */
    async replace(ctx: Context, id: string, body: unknown, ifMatch?: string): Promise<ScimDocument> {
      if (!isObject(body)) throw new Malformed('body', 'The body must be a Group object');
      const document = canonicalDocument(body, GROUP_RESOURCE);
      const displayName = displayNameOf(document.displayName);
      const members = document.members === undefined ? undefined : memberIds(document.members);
      const row = await write(ctx, async (trx) => {
        const before = await lock(ctx, trx, id, ifMatch);
        const after = { ...(await rename(trx, ctx.caller, before, displayName)), external_id: externalIdOf(document.externalId) };
        if (members !== undefined) await replaceMembers(trx, ctx.caller, after.tag, members);
        await save(trx, before, after);
        return after;
      });
      return render(ctx, row, true);
    },

    /**
     * PATCH: the operations in order, all or nothing. Answers 204 (RFC 7644 §3.5.2), as Entra ID advises
     * and Okta accepts. A client that sent If-Match gets the group's new version back, for its ETag; the
     * others, who send batches of members without versions, are spared reading every member again.
     */
    async patch(ctx: Context, id: string, body: unknown, ifMatch?: string): Promise<string | undefined> {
      const operations = readPatchRequest(body);
      return await write(ctx, async (trx) => {
        const before = await lock(ctx, trx, id, ifMatch);
        let row = before;
        for (const operation of operations) row = await applyOperation(trx, ctx.caller, row, operation);
        await save(trx, before, row);
        if (ifMatch === undefined) return undefined;
        const document = await render(ctx, (await scimGroupsRepository(trx).find(row.org_id, row.id))!, false, trx);
        return (document.meta as { version: string }).version;
      });
    },

    /** Deletes the group: its tag leaves every member, who are kept. */
    async delete(ctx: Context, id: string, ifMatch?: string): Promise<void> {
      await write(ctx, async (trx) => {
        const row = await lock(ctx, trx, id, ifMatch);
        await removeAllMembers(trx, ctx.caller, row.tag);
        await scimGroupsRepository(trx).delete(row.org_id, row.id);
      });
    },
  };
}

export type ScimGroupsService = ReturnType<typeof scimGroupsService>;
