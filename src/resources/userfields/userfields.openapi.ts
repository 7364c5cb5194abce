import { contentSchemas, type JsonSchema, type OpenApiDocument } from '../../lib/openapi.js';
import {
  allowsSeveralSelected,
  CONSTRAINT_PAIRS,
  TYPED_PROPERTIES,
  USERFIELD_TYPES,
  constraintKindOf,
  hasProperty,
  requiredProperties,
  type TypedProperty,
  type UserfieldType,
} from './userfield-types.js';

const capitalized = (type: string) => type[0]!.toUpperCase() + type.slice(1);

/** The shape of `schema` for one type: the type-dependent properties it does not have are dropped. */
function variantOf(schema: JsonSchema, type: UserfieldType, typeValues: string[], creating: boolean): JsonSchema {
  const properties: JsonSchema = {};
  for (const [name, property] of Object.entries<JsonSchema>(schema.properties ?? {})) {
    if (TYPED_PROPERTIES.includes(name as TypedProperty) && !hasProperty(type, name as TypedProperty)) continue;
    properties[name] = property;
  }
  properties.type = { type: 'string', enum: typeValues };
  if (properties.options && !allowsSeveralSelected(type)) {
    // One choice at most is preselected where a user makes one choice.
    const selected = { type: 'object', required: ['selected'], properties: { selected: { const: true } } };
    properties.options = { ...properties.options, contains: selected, minContains: 0, maxContains: 1 };
  }
  const kind = constraintKindOf(type);
  if (kind && properties.constraints?.properties) {
    const pair: readonly string[] = CONSTRAINT_PAIRS[kind];
    properties.constraints = {
      ...properties.constraints,
      properties: Object.fromEntries(Object.entries(properties.constraints.properties).filter(([name]) => pair.includes(name))),
    };
  }
  const required = new Set<string>([...(schema.required ?? []), ...(creating ? requiredProperties(type) : [])]);
  const { description: _omitted, ...rest } = schema;
  return {
    ...rest,
    title: `${creating ? 'New ' : ''}${capitalized(type)} userfield`,
    properties,
    required: [...required].filter((name) => name in properties),
    // A new field goes into a category, named by id or by name (or both, when they agree).
    ...(creating ? { anyOf: [{ required: ['categoryId'] }, { required: ['categoryName'] }] } : {}),
  };
}

/** One component per type and a `oneOf` over them, told apart by the `type` property. */
function describeByType(document: OpenApiDocument, baseSchema: JsonSchema, prefix: string, creating: boolean): JsonSchema {
  const schemas = ((document.components ??= {}).schemas ??= {});
  const mapping: Record<string, string> = {};
  for (const type of USERFIELD_TYPES) {
    const typeValues = creating && type === 'radiobuttons' ? ['radiobuttons', 'radios'] : [type];
    const name = `${prefix}${capitalized(type)}`;
    schemas[name] = variantOf(baseSchema, type, typeValues, creating);
    for (const value of typeValues) mapping[value] = `#/components/schemas/${name}`;
  }
  return {
    description: baseSchema.description,
    oneOf: [...new Set(Object.values(mapping))].map(($ref) => ({ $ref })),
    discriminator: { propertyName: 'type', mapping },
  };
}

/**
 * Validation uses one flat userfield schema (fast, and its errors name the property at fault);
 * the document shows the same schema split by type, so a reader sees exactly what each type has.
 */
export function describeUserfieldTypes(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components?.schemas ?? {};
  if (schemas.Userfield) schemas.Userfield = describeByType(document, schemas.Userfield, 'Userfield', false);
  for (const { path, method, schema, replace } of contentSchemas(document)) {
    if (path === '/userfields' && method === 'post' && schema.properties?.type) {
      replace(describeByType(document, schema, 'NewUserfield', true));
    }
  }
  return document;
}
