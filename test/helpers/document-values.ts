import fc from 'fast-check';

/**
 * Values that an OpenAPI 3.1 document's schemas allow, and nothing else: what a generated client or a
 * contract-testing tool (Schemathesis, Dredd) would send. Unlike fuzz.ts, which mostly tries to break
 * things, every value drawn here is one the document says the server takes.
 */
export type Schema = Record<string, any>;

const WORDS = ['Alpha', 'beta', 'Gamma 3', 'delta-4', 'Epsilon', 'zeta_6', 'Ünïcode', 'Name 8'];

/** Strings of a format the document names; `undefined` for formats it does not constrain here. */
function formatted(format: string | undefined, schema: Schema): fc.Arbitrary<string> | undefined {
  switch (format) {
    case 'password': {
      const minLength: number = schema.minLength ?? 8;
      return fc
        .tuple(fc.stringMatching(/^[A-Za-zÀ-ÿ]{1,8}$/), fc.stringMatching(/^[0-9]{1,4}$/), fc.stringMatching(/^[A-Za-z0-9 !$%-]{0,40}$/))
        .map(([letters, digits, rest]) => `${letters}${digits}${rest}`.padEnd(minLength, 'x').slice(0, schema.maxLength ?? 64));
    }
    case 'email':
      return fc
        .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/), fc.constantFrom('example.com', 'example.org'))
        .map(([local, host]) => `${local}@${host}`);
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2035-12-31T23:59:59Z'), noInvalidDate: true })
        .map((date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z'));
    case 'uri':
    case 'url':
      return fc
        .tuple(fc.stringMatching(/^[a-z]{1,10}$/), fc.stringMatching(/^[a-z0-9]{0,8}$/))
        .map(([host, path]) => `https://${host}.example.com/${path}`);
    default:
      return undefined;
  }
}

const byPattern = new Map<string, fc.Arbitrary<string>>();

function patterned(pattern: string): fc.Arbitrary<string> {
  let arbitrary = byPattern.get(pattern);
  if (!arbitrary) {
    arbitrary = fc.stringMatching(new RegExp(pattern, 'u')).filter((text) => text.length <= 200);
    byPattern.set(pattern, arbitrary);
  }
  return arbitrary;
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = Math.min(schema.maxLength ?? 60, Math.max(minLength, 60));
  const sized = (text: string) => [...text].length >= minLength && [...text].length <= maxLength;
  const format = formatted(schema.format, schema);
  if (format) return format.filter(sized);
  if (schema.pattern) return patterned(schema.pattern).filter(sized);
  const words = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((parts) => parts.join(' '));
  const padded = words.map((text) => (text.length < minLength ? text + 'x'.repeat(minLength - text.length) : text));
  return padded.map((text) => [...text].slice(0, maxLength).join('')).filter(sized);
}

function numberOf(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-6) : -1000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-6) : 100_000);
  return integer ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** Both schemas at once, as far as this generator needs: required names and properties add up. */
function merged(a: Schema, b: Schema): Schema {
  const result: Schema = { ...a, ...b };
  if (a.required || b.required) result.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  if (a.properties || b.properties) result.properties = { ...a.properties, ...b.properties };
  return result;
}

export class DocumentValues {
  /** `ids` names an existing id for a property that holds one (`categoryId`), so that writes find what they name now and then. */
  constructor(
    private readonly document: Schema,
    private readonly ids: (property: string) => string | undefined = () => undefined,
  ) {}

  /** `#/components/schemas/X` → its schema. */
  resolve(schema: Schema | undefined): Schema | undefined {
    let current = schema;
    while (current && typeof current.$ref === 'string') {
      current = current.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((node: any, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.document);
    }
    return current;
  }

  /** A value `schema` allows; `readOnly` properties are left out of objects, as a client leaves them out of requests. */
  value(given: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
    const schema = this.resolve(given);
    if (!schema || Object.keys(schema).length === 0) return fc.constantFrom('any', 1, true);
    if (schema.example !== undefined && depth > 8) return fc.constant(schema.example);
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
    if (schema.allOf) {
      const { allOf, ...rest } = schema;
      return this.value(
        (allOf as Schema[]).reduce((all, part) => merged(all, this.resolve(part) ?? {}), rest),
        depth,
      );
    }
    const union: Schema[] | undefined = schema.oneOf ?? schema.anyOf;
    if (union) {
      const { [schema.oneOf ? 'oneOf' : 'anyOf']: _union, ...rest } = schema;
      return fc.oneof(...union.map((member) => this.value(merged(rest, this.resolve(member) ?? {}), depth + 1)));
    }
    const types = [schema.type].flat().filter(Boolean) as string[];
    if (types.length > 1) return fc.oneof(...types.map((type) => this.value({ ...schema, type }, depth)));
    switch (types[0]) {
      case 'string':
        return stringOf(schema);
      case 'integer':
      case 'number':
        return numberOf(schema, types[0] === 'integer');
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const sizes = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, Math.max(schema.minItems ?? 0, 3)) };
        const items = this.value(schema.items, depth + 1);
        return schema.uniqueItems ? fc.uniqueArray(items, { ...sizes, selector: (item) => JSON.stringify(item) }) : fc.array(items, sizes);
      }
      case 'object':
      default:
        return this.object(schema, depth);
    }
  }

  /** A property's value; one holding ids holds an existing one most of the time. */
  private propertyValue(name: string, property: Schema, depth: number): fc.Arbitrary<unknown> {
    const any = this.value(property, depth);
    const id = () => this.ids(name);
    if (id() === undefined) return any;
    const existing = [this.resolve(property)?.type].flat().includes('array')
      ? fc.constant(null).map(() => [id()])
      : fc.constant(null).map(() => id());
    return fc.oneof({ weight: 4, arbitrary: existing }, { weight: 1, arbitrary: any });
  }

  private object(schema: Schema, depth: number): fc.Arbitrary<unknown> {
    const required = new Set<string>(schema.required ?? []);
    const entries = Object.entries<Schema>(schema.properties ?? {}).filter(
      ([name, property]) => required.has(name) || !this.resolve(property)?.readOnly,
    );
    if (entries.length === 0) return fc.constant({});
    return fc
      .tuple(
        ...entries.map(([name, property]) => {
          const value = this.propertyValue(name, property, depth + 1);
          return required.has(name)
            ? value.map((drawn) => [name, drawn] as const)
            : fc.option(value, { nil: undefined, freq: 2 }).map((drawn) => [name, drawn] as const);
        }),
      )
      .map((pairs) => Object.fromEntries(pairs.filter(([, value]) => value !== undefined)));
  }
}
