import { USER_SCHEMA, ENTERPRISE_SCHEMA, ENTERPRISE_ATTRIBUTES, findAttribute } from '../../scim/schemas.js';

/**
 * A SCIM attribute an organization maps onto a userfield, and where its value sits in a user's
 * SCIM document. Four forms are mappable:
 * - a simple core attribute the server does not store itself: `title`, `nickName`, `displayName`, ...
 *   or a part of the name: `name.middleName`;
 * - one typed entry of a multi-valued core attribute: `phoneNumbers[type eq "work"].value`,
 *   `addresses[type eq "work"].locality`;
 * - an enterprise extension attribute: `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department`
 *   (`manager` holds the manager's id in `manager.value`);
 * - an attribute of the organization's own extension schema: `urn:example:params:scim:schemas:extension:acme:2.0:User:badge`.
 */
export interface MappedAttribute {
  /** The canonical spelling, as stored and shown. */
  path: string;
  /** Lower-cased `path`: SCIM names are case-insensitive, and so are canonical type values. */
  key: string;
  /** USER_SCHEMA for core attributes, else the extension's URN. */
  schema: string;
  /** The attribute (top level of its schema). */
  name: string;
  /** The sub-attribute holding the value, for `name.*`, typed entries and `manager`. */
  sub?: string;
  /** The `type` of the entry, for typed multi-valued attributes. */
  type?: string;
}

/**
 * Whether RFC 7643 defines the attribute (core or enterprise; every one of them a string): its values
 * travel as strings whatever userfield holds them, and the organization's own attributes take the
 * userfield's type.
 */
export function isStandardAttribute(mapping: MappedAttribute): boolean {
  return mapping.schema === USER_SCHEMA || mapping.schema === ENTERPRISE_SCHEMA;
}

const SIMPLE_CORE = ['displayName', 'nickName', 'title', 'userType', 'preferredLanguage', 'timezone', 'profileUrl'];
const NAME_PARTS = ['middleName', 'honorificPrefix', 'honorificSuffix'];
const TYPED_CORE: Record<string, string[]> = {
  phoneNumbers: ['value'],
  addresses: ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country'],
};

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** A URN of the organization's own extension schema: `urn:<namespace>:<more>` without spaces or quotes. */
const CUSTOM_URN = /^urn:[A-Za-z0-9][A-Za-z0-9-]{0,31}:[^\s"'\\]+$/i;
const TYPED = /^([A-Za-z]+)\[\s*type\s+eq\s+"([^"\\]{1,64})"\s*\]\.([A-Za-z]+)$/i;

function pick(list: readonly string[], name: string): string | undefined {
  return list.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
}

function mapped(path: string, schema: string, name: string, sub?: string, type?: string): MappedAttribute {
  return { path, key: path.toLowerCase(), schema, name, ...(sub ? { sub } : {}), ...(type ? { type } : {}) };
}

function parseCore(text: string): MappedAttribute | string {
  const simple = pick(SIMPLE_CORE, text);
  if (simple) return mapped(simple, USER_SCHEMA, simple);
  const dot = /^name\.([A-Za-z]+)$/i.exec(text);
  if (dot) {
    const part = pick(NAME_PARTS, dot[1]!);
    return part
      ? mapped(`name.${part}`, USER_SCHEMA, 'name', part)
      : `name.${dot[1]} cannot be mapped; name parts that can: ${NAME_PARTS.join(', ')}`;
  }
  const typed = TYPED.exec(text);
  if (typed) {
    const name = pick(Object.keys(TYPED_CORE), typed[1]!);
    if (!name) return `${typed[1]} cannot be mapped; typed attributes that can: ${Object.keys(TYPED_CORE).join(', ')}`;
    const sub = pick(TYPED_CORE[name]!, typed[3]!);
    if (!sub) return `${name} has no sub-attribute ${typed[3]} that can be mapped; it has ${TYPED_CORE[name]!.join(', ')}`;
    const type = typed[2]!.toLowerCase();
    return mapped(`${name}[type eq "${type}"].${sub}`, USER_SCHEMA, name, sub, type);
  }
  return (
    `"${text}" is not a mappable attribute: use one of ${SIMPLE_CORE.join(', ')}, name.${NAME_PARTS.join(', name.')}, ` +
    'phoneNumbers[type eq "<type>"].value, addresses[type eq "<type>"].<part>, an enterprise extension attribute, ' +
    "or an attribute of the organization's own extension schema (urn:...:<attribute>)"
  );
}

/** Parses a mappable attribute, or returns why it is not one. */
export function parseMappedAttribute(input: string): MappedAttribute | string {
  const text = input.trim();
  if (!/^urn:/i.test(text)) return parseCore(text);
  const colon = text.lastIndexOf(':');
  const urn = text.slice(0, colon);
  const name = text.slice(colon + 1);
  if (urn.toLowerCase() === USER_SCHEMA.toLowerCase()) return parseCore(name);
  if (urn.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase()) {
    const known = findAttribute(ENTERPRISE_ATTRIBUTES, name.replace(/\.value$/i, ''));
    if (!known) return `The enterprise extension has no attribute ${name}; it has ${ENTERPRISE_ATTRIBUTES.map((a) => a.name).join(', ')}`;
    return mapped(`${ENTERPRISE_SCHEMA}:${known.name}`, ENTERPRISE_SCHEMA, known.name, known.type === 'complex' ? 'value' : undefined);
  }
  if (!CUSTOM_URN.test(urn) || !NAME.test(name) || /^urn:ietf:params:scim:(api|schemas:core)/i.test(urn)) {
    return `"${text}" is not an attribute of an extension schema: write urn:<namespace>:...:<schema>:<attribute>, the attribute being a plain name`;
  }
  return mapped(`${urn}:${name}`, urn, name);
}
