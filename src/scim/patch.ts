import { InvalidScimRemoveValue, NoTarget, ScimError, scimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { parseFilter } from './filter.js';
import { findAttribute, isStandardSubAttributeName } from './schemas.js';
import type { ResourceSchema, ScimDocument } from './documents.js';
import { scimErrors } from './scim-errors.js';
import { PATCH_SCHEMA } from './schemas.js';

/**
 * PATCH requests (RFC 7644 §3.5.2) as identity providers send them: operation names in any case
 * (Entra ID sends "Replace", "Add"), attribute names in any case, a path or an object of paths.
 * Operations are checked and put in canonical form here; users apply them with scim-patch to their
 * current document, groups interpret them as membership changes.
 */
export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path?: string;
  value?: unknown;
}

/** Names that would reach an object's prototype if a path ever wrote through them. */
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);
const MAX_OPERATIONS = 1000;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The operations of a PatchOp body, checked for shape. */
export function readPatchRequest(body: unknown): PatchOperation[] {
  if (!isObject(body)) throw scimErrors.invalidSyntax('The body must be a PatchOp object');
  const schemas = body.schemas;
  if (
    schemas !== undefined &&
    !(Array.isArray(schemas) && schemas.some((s) => typeof s === 'string' && s.toLowerCase() === PATCH_SCHEMA.toLowerCase()))
  ) {
    throw scimErrors.invalidSyntax(`schemas must hold ${PATCH_SCHEMA}`);
  }
  const operations = body.Operations ?? body.operations;
  if (!Array.isArray(operations) || operations.length === 0) throw scimErrors.invalidSyntax('Operations must be a non-empty list');
  if (operations.length > MAX_OPERATIONS) throw scimErrors.invalidSyntax(`A PATCH holds at most ${MAX_OPERATIONS} operations`);
  return operations.map((operation, index) => {
    if (!isObject(operation)) throw scimErrors.invalidSyntax(`Operations[${index}] must be an object`);
    const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : undefined;
    if (op !== 'add' && op !== 'remove' && op !== 'replace') {
      throw scimErrors.invalidSyntax(`Operations[${index}].op must be add, remove or replace`);
    }
    const path = operation.path;
    if (path !== undefined && path !== null && (typeof path !== 'string' || path.trim() === '')) {
      throw scimErrors.invalidPath(`Operations[${index}].path must be a non-empty string`);
    }
    if (op === 'remove' && typeof path !== 'string') throw scimErrors.noTarget(`Operations[${index}]: remove needs a path`);
    if (op !== 'remove' && !('value' in operation)) throw scimErrors.invalidValue(`Operations[${index}]: ${op} needs a value`);
    if (typeof path !== 'string' && op !== 'remove' && !isObject(operation.value)) {
      throw scimErrors.invalidValue(`Operations[${index}]: without a path, the value must be an object of attributes`);
    }
    return { op, ...(typeof path === 'string' ? { path: path.trim() } : {}), ...('value' in operation ? { value: operation.value } : {}) };
  });
}

/** A path split into its parts: `[urn:...:]attribute[[filter]][.sub]`. */
interface PathParts {
  /** The extension URN, when the attribute is an extension's. */
  urn?: string;
  attribute: string;
  filter?: string;
  sub?: string;
}

const PATH = /^([A-Za-z$][\w$-]*)(?:\[(.*)\])?(?:\.([A-Za-z$][\w$-]*))?$/s;

/** Splits and canonicalizes a path against the schema (names in the schema's spelling); unknown names are kept as sent. */
export function parsePath(path: string, schema: ResourceSchema): PathParts {
  let rest = path;
  let urn: string | undefined;
  if (/^urn:/i.test(path)) {
    const lower = path.toLowerCase();
    const known = [schema.id, ...schema.extensions.keys()].find((candidate) => lower.startsWith(`${candidate.toLowerCase()}:`));
    if (known) {
      rest = path.slice(known.length + 1);
      if (known !== schema.id) urn = known;
    } else {
      const colon = path.replace(/\[.*\]/s, '').lastIndexOf(':');
      urn = path.slice(0, colon);
      rest = path.slice(colon + 1);
    }
  }
  const match = PATH.exec(rest);
  if (!match) throw scimErrors.invalidPath(`The path "${path}" is not a valid attribute path`);
  const [, name, filter, sub] = match;
  if (filter !== undefined) parseFilter(filter, (detail) => scimErrors.invalidPath(`The value filter of the path is not valid: ${detail}`));
  const segments = [...(urn ?? '').split(/[:.]/), name!, sub ?? ''];
  if (segments.some((segment) => FORBIDDEN.has(segment.toLowerCase()))) throw scimErrors.invalidPath(`The path "${path}" is not allowed`);
  const attributes = urn ? schema.extensions.get(urn) : schema.core;
  const known = attributes && findAttribute(attributes, name!);
  const knownSub = known?.subAttributes && sub !== undefined ? findAttribute(known.subAttributes, sub) : undefined;
  if (known && filter !== undefined && !known.multiValued) {
    throw scimErrors.invalidPath(`${known.name} is single-valued: a value filter [...] selects entries of a multi-valued attribute`);
  }
  // An attribute the server does not hold is ignored, sub-attributes and all; one it holds has the sub-attributes it lists or RFC 7643 defines.
  if (known && sub !== undefined && !knownSub && !isStandardSubAttributeName(known.name, sub)) {
    throw scimErrors.invalidPath(`${known.name} has no sub-attribute "${sub}"`);
  }
  return {
    ...(urn ? { urn } : {}),
    attribute: known?.name ?? name!,
    ...(filter !== undefined ? { filter } : {}),
    ...(sub !== undefined ? { sub: knownSub?.name ?? sub } : {}),
  };
}

export function formatPath(parts: PathParts): string {
  return `${parts.urn ? `${parts.urn}:` : ''}${parts.attribute}${parts.filter !== undefined ? `[${parts.filter}]` : ''}${parts.sub ? `.${parts.sub}` : ''}`;
}

function isReadOnly(schema: ResourceSchema, parts: PathParts): boolean {
  if (parts.urn) return false;
  const known = findAttribute(schema.core, parts.attribute);
  if (parts.attribute === 'schemas' || known?.mutability === 'readOnly') return true;
  const sub = parts.sub && known?.subAttributes ? findAttribute(known.subAttributes, parts.sub) : undefined;
  return sub?.mutability === 'readOnly';
}

/** The schema whose URN `name` is, in the schema's spelling: the resource's own or one of its extensions. */
function schemaNamed(schema: ResourceSchema, name: string): string | undefined {
  const lower = name.toLowerCase();
  return [schema.id, ...schema.extensions.keys()].find((urn) => urn.toLowerCase() === lower);
}

function attributesOf(urn: string, value: unknown): [string, unknown][] {
  if (!isObject(value)) throw scimErrors.invalidValue(`The value of ${urn} must be an object of its attributes`);
  return Object.entries(value).map(([name, child]) => [`${urn}:${name}`, child]);
}

/**
 * A schema named whole (RFC 7644 §3.5.2: its URN as the path, or as a key of a value without a path)
 * becomes its attributes, each by its full path: the attributes not named are left as they are, and a
 * remove takes away every one the document holds.
 */
function bySchemaAttributes(operation: PatchOperation, schema: ResourceSchema, document: ScimDocument): PatchOperation[] {
  if (operation.path === undefined) {
    const value = Object.entries(operation.value as Record<string, unknown>).flatMap(([key, child]) => {
      const urn = schemaNamed(schema, key);
      return urn ? attributesOf(urn, child) : [[key, child] as [string, unknown]];
    });
    return [{ op: operation.op, value: Object.fromEntries(value) }];
  }
  const urn = schemaNamed(schema, operation.path);
  if (!urn) return [operation];
  if (operation.op === 'remove') {
    if (urn === schema.id) throw scimErrors.invalidPath(`The path "${operation.path}" names the whole resource, which a PATCH cannot remove`);
    const held = document[urn];
    return Object.keys(isObject(held) ? held : {}).map((name) => ({ op: 'remove', path: `${urn}:${name}` }));
  }
  return attributesOf(urn, operation.value).map(([path, value]) => ({ op: operation.op, path, value }));
}

/** A path in canonical form; a path naming a read-only attribute is refused (`mutability`). */
function canonicalOperation(operation: PatchOperation, schema: ResourceSchema): ScimPatchOperation {
  if (operation.path === undefined) {
    const value: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(operation.value as Record<string, unknown>)) {
      const parts = parsePath(key, schema);
      if (!isReadOnly(schema, parts)) value[formatPath(parts)] = child;
    }
    return { op: operation.op, value } as ScimPatchOperation;
  }
  const parts = parsePath(operation.path, schema);
  if (isReadOnly(schema, parts)) throw scimErrors.mutability(`${formatPath(parts)} is read-only`);
  // A flag such as active has no absent state here: it can be replaced, not removed.
  if (operation.op === 'remove' && !parts.urn && !parts.sub && findAttribute(schema.core, parts.attribute)?.type === 'boolean') {
    throw scimErrors.mutability(`${parts.attribute} cannot be removed; replace it with true or false`);
  }
  return { ...operation, path: formatPath(parts) };
}

/**
 * Applies one operation with scim-patch, whose refusals are told here in this server's words. A value
 * filter that selects nothing (scim-patch's errors that carry the `valuePath`, or NoTarget) has
 * nothing to remove, and nothing to add to or replace.
 */
function applyOperation(document: ScimResource, operation: ScimPatchOperation): ScimResource {
  try {
    return scimPatch(document, [operation], { mutateDocument: true, treatMissingAsAdd: true });
  } catch (error) {
    const path = operation.path ?? 'the attributes of a PATCH without a path';
    // scim-patch writes through the path as it finds it: a sub-attribute of a text is a TypeError there.
    if (error instanceof TypeError) throw scimErrors.invalidPath(`${path}: the path goes through a value that is not an object`);
    if (!(error instanceof ScimError)) throw error;
    if (error instanceof NoTarget || 'valuePath' in error) {
      if (operation.op === 'remove') return document;
      throw scimErrors.noTarget(`${path}: no entry matches the value filter`);
    }
    if (error instanceof InvalidScimRemoveValue) {
      throw scimErrors.invalidValue(`${path}: a remove with a value takes the entries it lists out of a multi-valued attribute`);
    }
    throw scimErrors.invalidValue(`${path}: a complex attribute, or an entry selected by a value filter, takes an object of its sub-attributes`);
  }
}

/**
 * Applies the operations to a resource's current document with scim-patch, one by one, each path in
 * canonical form. In an object without a path, read-only attributes (an `id` sent back, `meta`) are
 * skipped.
 */
export function applyPatch(document: ScimDocument, operations: readonly PatchOperation[], schema: ResourceSchema): ScimDocument {
  const expanded = operations.flatMap((operation) => bySchemaAttributes(operation, schema, document));
  if (expanded.length === 0) return document;
  const canonical = expanded.map((operation) => canonicalOperation(operation, schema));
  return canonical.reduce(applyOperation, structuredClone(document) as unknown as ScimResource) as unknown as ScimDocument;
}
