import type { PasswordPolicy } from '../../lib/password-policy.js';
import type { UserfieldType } from '../../resources/userfields/userfield-types.js';
import { resourceSchema, type ResourceSchema } from '../documents.js';
import type { MappedUserfield } from '../../resources/attribute-mappings/attribute-mappings.service.js';
import { isStandardAttribute } from '../../resources/attribute-mappings/mapped-attribute.js';
import { attribute, ENTERPRISE_ATTRIBUTES, findAttribute, userAttributes, USER_SCHEMA, type Attribute, type AttributeType } from '../schemas.js';

/** How a userfield's value travels in SCIM. */
function attributeTypeOf(type: UserfieldType): { type: AttributeType; multiValued: boolean } {
  switch (type) {
    case 'number':
      return { type: 'integer', multiValued: false };
    case 'decimal':
      return { type: 'decimal', multiValued: false };
    case 'checkbox':
    case 'truefalse':
      return { type: 'boolean', multiValued: false };
    case 'checkboxes':
      return { type: 'string', multiValued: true };
    default:
      return { type: 'string', multiValued: false };
  }
}

/**
 * What a userfield takes, where its SCIM type does not say it: a standard attribute is a string
 * whatever the userfield (RFC 7643), so a number userfield's integers come as text.
 */
const TAKES: Partial<Record<UserfieldType, string>> = {
  number: 'takes integers, such as 42 or "42"',
  decimal: 'takes numbers, such as 4.5 or "4.5"',
  date: 'takes dates, such as "2024-03-15" or "03/15/2024"',
};

function fieldAttribute(name: string, mapping: MappedUserfield): Attribute {
  const label = mapping.field.name ?? 'a userfield';
  const fieldType = mapping.field.type as UserfieldType;
  const { type, multiValued } = attributeTypeOf(fieldType);
  const takes = TAKES[fieldType] ? `; it ${TAKES[fieldType]}` : '';
  return attribute(name, isStandardAttribute(mapping) ? 'string' : type, `Stored in the userfield "${label}" (${mapping.field.id})${takes}`, {
    multiValued,
  });
}

function addSub(attributes: Attribute[], parent: Attribute, sub: Attribute): void {
  const index = attributes.findIndex((candidate) => candidate.name === parent.name);
  const existing = index < 0 ? parent : attributes[index]!;
  const merged = { ...existing, subAttributes: [...(existing.subAttributes ?? []).filter((s) => s.name !== sub.name), sub] };
  if (index < 0) attributes.push(merged);
  else attributes[index] = merged;
}

/**
 * The User resource for one organization: the core attributes the server stores, plus those the
 * organization maps onto userfields, each extension schema holding only its mapped attributes.
 */
export function userSchemaFor(mappings: readonly MappedUserfield[], passwordPolicy: PasswordPolicy): ResourceSchema {
  const core = userAttributes(passwordPolicy);
  const extensions = new Map<string, Attribute[]>();
  for (const mapping of mappings) {
    if (mapping.schema !== USER_SCHEMA) {
      const urn = [...extensions.keys()].find((key) => key.toLowerCase() === mapping.schema.toLowerCase()) ?? mapping.schema;
      const attributes = extensions.get(urn) ?? [];
      // manager keeps its complex shape, its id in manager.value
      const manager = mapping.sub ? findAttribute(ENTERPRISE_ATTRIBUTES, mapping.name) : undefined;
      attributes.push(manager ?? fieldAttribute(mapping.name, mapping));
      extensions.set(urn, attributes);
    } else if (mapping.type !== undefined) {
      const parent = attribute(mapping.name, 'complex', `Typed entries; mapped: ${mapping.path}`, {
        multiValued: true,
        subAttributes: [attribute('type', 'string', 'The kind of entry')],
      });
      addSub(core, parent, fieldAttribute(mapping.sub!, mapping));
    } else if (mapping.sub !== undefined) {
      addSub(core, findAttribute(core, mapping.name)!, fieldAttribute(mapping.sub, mapping));
    } else {
      core.push(fieldAttribute(mapping.name, mapping));
    }
  }
  return resourceSchema(USER_SCHEMA, core, extensions);
}
