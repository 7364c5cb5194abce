import { COMMON_ATTRIBUTES, findAttribute, isStandardAttributeName, type Attribute } from './schemas.js';
import { scimErrors } from './scim-errors.js';

/** A SCIM resource as JSON. */
export type ScimDocument = Record<string, unknown>;

/** What a resource type is made of for one organization: core attributes and extension schemas. */
export interface ResourceSchema {
  /** The core schema's URN. */
  id: string;
  /** Core attributes, the common ones (id, externalId, meta) included. */
  core: Attribute[];
  /** Extension schemas by URN. */
  extensions: Map<string, Attribute[]>;
}

export function resourceSchema(id: string, core: Attribute[], extensions = new Map<string, Attribute[]>()): ResourceSchema {
  return { id, core: [...COMMON_ATTRIBUTES, ...core], extensions };
}

function extensionUrn(schema: ResourceSchema, name: string): string | undefined {
  const key = name.toLowerCase();
  return [...schema.extensions.keys()].find((urn) => urn.toLowerCase() === key);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Renames keys to their schema spelling, recursively; unknown keys are kept as they are. */
function canonicalObject(value: Record<string, unknown>, attributes: readonly Attribute[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const known = findAttribute(attributes, key);
    result[known?.name ?? key] = known?.subAttributes ? canonicalValue(child, known.subAttributes) : child;
  }
  return result;
}

function canonicalValue(value: unknown, attributes: readonly Attribute[]): unknown {
  if (Array.isArray(value)) return value.map((item) => (isObject(item) ? canonicalObject(item, attributes) : item));
  return isObject(value) ? canonicalObject(value, attributes) : value;
}

/**
 * A client's document with every known attribute, sub-attribute and extension URN spelled as the
 * schema spells it (SCIM names are case-insensitive: `UserName`, `emails[].Value`).
 */
export function canonicalDocument(document: Record<string, unknown>, schema: ResourceSchema): ScimDocument {
  const result: ScimDocument = {};
  for (const [key, value] of Object.entries(document)) {
    const urn = extensionUrn(schema, key);
    if (urn) {
      result[urn] = isObject(value) ? canonicalObject(value, schema.extensions.get(urn)!) : value;
      continue;
    }
    const known = findAttribute(schema.core, key);
    result[known?.name ?? key] = known?.subAttributes ? canonicalValue(value, known.subAttributes) : value;
  }
  return result;
}

/** One attribute named in `attributes=`/`excludedAttributes=`: an extension URN, then an attribute, then maybe a sub-attribute. */
interface AttributeReference {
  urn?: string;
  name: string;
  sub?: string;
}

/**
 * Resolves `name`, `name.sub`, `urn:...:name(.sub)` or a bare extension URN against the schema.
 * An attribute RFC 7643 defines that the resource does not hold is undefined (nothing to select or
 * leave out); any other unknown name is refused.
 */
function parseAttributeReference(text: string, schema: ResourceSchema): AttributeReference | { urn: string } | undefined {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === 'schemas') return undefined; // always returned: nothing to select or leave out
  const bare = extensionUrn(schema, trimmed);
  if (bare) return { urn: bare };
  let urn: string | undefined;
  let prefix: string | undefined;
  let rest = trimmed;
  if (/^urn:/i.test(trimmed)) {
    const colon = trimmed.lastIndexOf(':');
    prefix = trimmed.slice(0, colon);
    rest = trimmed.slice(colon + 1);
    if (prefix.toLowerCase() !== schema.id.toLowerCase()) urn = extensionUrn(schema, prefix);
  }
  const [name = '', sub, ...more] = rest.split('.');
  const attributes = prefix === undefined || prefix.toLowerCase() === schema.id.toLowerCase() ? schema.core : urn && schema.extensions.get(urn);
  const known = attributes ? findAttribute(attributes, name) : undefined;
  const knownSub = sub === undefined ? undefined : known?.subAttributes && findAttribute(known.subAttributes, sub);
  if (known && more.length === 0 && (sub === undefined || knownSub)) {
    return { ...(urn ? { urn } : {}), name: known.name, ...(knownSub ? { sub: knownSub.name } : {}) };
  }
  if (more.length === 0 && isStandardAttributeName(name, prefix)) return undefined;
  if (prefix !== undefined && !attributes) throw scimErrors.invalidValue(`Unknown schema in attribute "${trimmed}"`);
  throw scimErrors.invalidValue(`Unknown attribute "${trimmed}"`);
}

function parseList(list: string, schema: ResourceSchema) {
  return list
    .split(',')
    .filter((item) => item.trim() !== '')
    .flatMap((item) => parseAttributeReference(item, schema) ?? []);
}

function always(schema: ResourceSchema, name: string): boolean {
  return findAttribute(schema.core, name)?.returned === 'always' || name === 'schemas';
}

/**
 * `attributes`/`excludedAttributes` checked now and applied later: a write refuses an unknown
 * attribute before it writes anything, not after.
 */
export function projection(schema: ResourceSchema, attributes?: string, excluded?: string): (document: ScimDocument) => ScimDocument {
  for (const list of [attributes, excluded]) if (list !== undefined && list.trim() !== '') parseList(list, schema);
  return (document) => projectDocument(document, schema, attributes, excluded);
}

/**
 * Applies `attributes` (only these, plus those always returned) or `excludedAttributes` (all but
 * these) to a resource (RFC 7644 §3.4.2.5).
 */
export function projectDocument(document: ScimDocument, schema: ResourceSchema, attributes?: string, excluded?: string): ScimDocument {
  if (attributes !== undefined && attributes.trim() !== '') {
    const wanted = parseList(attributes, schema);
    const result: ScimDocument = {};
    for (const [key, value] of Object.entries(document)) if (always(schema, key)) result[key] = value;
    for (const reference of wanted) {
      if (!('name' in reference)) {
        if (document[reference.urn] !== undefined) result[reference.urn] = document[reference.urn];
        continue;
      }
      const source = reference.urn ? (document[reference.urn] as Record<string, unknown> | undefined) : document;
      const value = source?.[reference.name];
      if (value === undefined) continue;
      const target = reference.urn ? ((result[reference.urn] ??= {}) as Record<string, unknown>) : result;
      if (reference.sub === undefined) {
        target[reference.name] = value;
      } else if (Array.isArray(value)) {
        const existing = (target[reference.name] as Record<string, unknown>[] | undefined) ?? value.map((): Record<string, unknown> => ({}));
        value.forEach((item, index) => {
          if (isObject(item) && item[reference.sub!] !== undefined) existing[index]![reference.sub!] = item[reference.sub!];
        });
        target[reference.name] = existing;
      } else if (isObject(value) && value[reference.sub] !== undefined) {
        target[reference.name] = { ...(target[reference.name] as object | undefined), [reference.sub]: value[reference.sub] };
      }
    }
    return result;
  }
  if (excluded !== undefined && excluded.trim() !== '') {
    const result: ScimDocument = structuredClone(document);
    for (const reference of parseList(excluded, schema)) {
      if (!('name' in reference)) {
        delete result[reference.urn];
        continue;
      }
      if (!reference.urn && always(schema, reference.name)) continue;
      const source = reference.urn ? (result[reference.urn] as Record<string, unknown> | undefined) : result;
      if (!source) continue;
      const value = source[reference.name];
      if (reference.sub === undefined) {
        delete source[reference.name];
      } else if (Array.isArray(value)) {
        for (const item of value) if (isObject(item)) delete item[reference.sub];
      } else if (isObject(value)) {
        delete value[reference.sub];
      }
    }
    return result;
  }
  return document;
}
