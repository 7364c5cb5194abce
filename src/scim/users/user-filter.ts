import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Filter } from 'scim2-parse-filter';
import { hasWord, lowerCase } from '../../db/filters.js';
import type { UserfieldType } from '../../resources/userfields/userfield-types.js';
import {
  booleanOperand,
  constantOperand,
  dateTimeOperand,
  FALSE,
  likePattern,
  textOperand,
  translateFilter,
  TRUE,
  valuesFor,
  type Comparison,
  type Condition,
  type FilterValue,
  type Operand,
} from '../filter.js';
import type { MappedUserfield } from '../../resources/attribute-mappings/attribute-mappings.service.js';
import { USER_SCHEMA } from '../schemas.js';
import { scimErrors } from '../scim-errors.js';
import { fieldValueOf } from './user-document.js';

const column = (name: string) => sql.ref(`users.${name}`);

/** userName is the username, or the email of a user without one; equality uses both unique keys. */
const userNameOperand: Operand = {
  compare(op, value) {
    if (op === 'eq' && typeof value === 'string') {
      const key = lowerCase(value);
      return sql<SqlBool>`(${column('username_key')} = ${key} or (${column('username_key')} is null and ${column('email_key')} = ${key}))`;
    }
    return textOperand(sql`coalesce(${column('username')}, ${column('email')})`, false).compare(op, value);
  },
};

function exists(fieldId: string, condition: Condition): Condition {
  return sql<SqlBool>`exists (select 1 from userfield_values v where v.org_id = users.org_id and v.user_id = users.id and v.userfield_id = ${fieldId} and ${condition})`;
}

const NUMERIC_COMPARISONS: Partial<Record<Comparison, string>> = { eq: '=', gt: '>', ge: '>=', lt: '<', le: '<=' };

/** A mapped userfield's value, stored as JSON text in userfield_values. */
function userfieldOperand(mapping: MappedUserfield): Operand {
  const type = mapping.field.type as UserfieldType;
  const stored = sql.ref('v.value');
  function condition(op: Comparison, value: FilterValue | undefined): Condition {
    const converted = fieldValueOf(type, value);
    if (type === 'number' || type === 'decimal') {
      const operator = NUMERIC_COMPARISONS[op];
      if (!operator || typeof converted !== 'number')
        throw scimErrors.invalidFilter(`${mapping.path} is a number: compare it with eq, ne, gt, ge, lt or le and a number`);
      return sql<SqlBool>`cast(${stored} as double precision) ${sql.raw(operator)} ${converted}`;
    }
    if (typeof converted === 'boolean') {
      if (op !== 'eq') throw scimErrors.invalidFilter(`${mapping.path} is a boolean: compare it with eq or ne`);
      return sql<SqlBool>`${stored} = ${String(converted)}`;
    }
    const text = Array.isArray(converted) && converted.length === 1 ? converted[0] : converted;
    if (typeof text !== 'string') throw scimErrors.invalidFilter(`${mapping.path} compares with a quoted string`);
    const json = lowerCase(JSON.stringify(text));
    const inner = json.slice(1, -1);
    const folded = sql`lower(${stored})`;
    if (type === 'checkboxes') {
      if (op !== 'eq') throw scimErrors.invalidFilter(`${mapping.path} is a list: compare it with eq (holds) or ne`);
      return sql<SqlBool>`${folded} like ${likePattern(json, '%', '%')} escape '!'`;
    }
    switch (op) {
      case 'eq':
        return sql<SqlBool>`${folded} = ${json}`;
      case 'co':
        return sql<SqlBool>`${folded} like ${likePattern(inner, '%', '%')} escape '!'`;
      case 'sw':
        return sql<SqlBool>`${folded} like ${likePattern(inner, '"', '%')} escape '!'`;
      case 'ew':
        return sql<SqlBool>`${folded} like ${likePattern(inner, '%', '"')} escape '!'`;
      default:
        return sql<SqlBool>`${folded} ${sql.raw(NUMERIC_COMPARISONS[op]!)} ${json}`;
    }
  }
  return {
    compare(op, value) {
      if (op === 'pr') return exists(mapping.field.id, TRUE);
      if (op === 'ne') return sql<SqlBool>`(not ${exists(mapping.field.id, condition('eq', value))})`;
      return exists(mapping.field.id, condition(op, value));
    },
  };
}

/** Membership of a group: carrying its tag. `tags` maps group ids to tags; an unknown group has no members. */
function groupOperand(tags: ReadonlyMap<string, string>): Operand {
  return {
    compare(op, value) {
      if (op === 'pr') return sql<SqlBool>`(${column('tags')} is not null)`;
      const tag = typeof value === 'string' ? tags.get(value) : undefined;
      const member: RawBuilder<SqlBool> = tag === undefined ? FALSE : sql<SqlBool>`(${column('tags')} is not null and ${hasWord('users.tags', tag)})`;
      if (op === 'eq') return member;
      if (op === 'ne') return sql<SqlBool>`(not ${member})`;
      throw scimErrors.invalidFilter('groups compares with eq or ne and a group id');
    },
  };
}

function withoutCoreUrn(path: string): string {
  const prefix = `${USER_SCHEMA}:`;
  return path.toLowerCase().startsWith(prefix.toLowerCase()) ? path.slice(prefix.length) : path;
}

/** The group ids a users filter names (`groups eq "..."`, `groups[value eq "..."]`), whose tags must be known to translate it. */
export function groupIdsIn(filter: Filter): string[] {
  return valuesFor(filter, (path, parent) => {
    const full = (parent ? `${withoutCoreUrn(parent)}.${path}` : withoutCoreUrn(path)).toLowerCase();
    return full === 'groups' || full === 'groups.value';
  });
}

/** The SQL condition of a users filter. */
export function userCondition(filter: Filter, mappings: readonly MappedUserfield[], groupTags: ReadonlyMap<string, string>): Condition {
  const operands: Record<string, Operand> = {
    id: textOperand(column('id'), true),
    externalid: textOperand(column('external_id'), true),
    username: userNameOperand,
    'name.givenname': textOperand(column('first_name'), false),
    'name.familyname': textOperand(column('last_name'), false),
    emails: textOperand(column('email'), false),
    'emails.value': textOperand(column('email'), false),
    'emails.type': constantOperand('work'),
    'emails.primary': constantOperand(true),
    locale: textOperand(column('locale'), false),
    active: booleanOperand(column('active')),
    'meta.created': dateTimeOperand(column('created_date')),
    'meta.lastmodified': dateTimeOperand(column('updated_date')),
    groups: groupOperand(groupTags),
    'groups.value': groupOperand(groupTags),
  };
  for (const mapping of mappings) {
    if (mapping.type !== undefined) continue; // typed entries (phoneNumbers[type eq "work"]) are not filterable
    const operand = userfieldOperand(mapping);
    operands[mapping.key] = operand;
    if (mapping.sub) operands[`${mapping.key}.${mapping.sub.toLowerCase()}`] = operand; // manager.value
  }
  return translateFilter(filter, (path, parent) => {
    const full = parent ? `${withoutCoreUrn(parent)}.${path}` : withoutCoreUrn(path);
    return operands[full.toLowerCase()];
  });
}
