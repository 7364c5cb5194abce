import { maxHeaderSize } from 'node:http';
import fc from 'fast-check';
import { fillPath, type ApiRoute } from './route-table.js';
import { UNKNOWN_ID, VALID_BODIES } from './tenants.js';

/**
 * Request generators for fuzzing: each route's path, query and body drawn from its own schemas
 * (TypeBox, that is JSON Schema), mixed with values chosen to break parsers, validators and
 * databases.
 */

/** A request as sent: the URL is already encoded, the payload is JSON text (or deliberately not). */
export interface FuzzRequest {
  route: ApiRoute;
  url: string;
  payload?: string;
}

/** The ids a request may name: the caller's own (refreshed as the fuzzing creates things), another organization's, none. */
export class IdPool {
  private readonly own = new Map<string, string[]>();

  constructor(
    own: Record<string, string>,
    private readonly foreign: Record<string, string>,
  ) {
    for (const [kind, id] of Object.entries(own)) this.add(kind, id);
  }

  /** Keeps the latest ids of each kind, so deletions do not leave the fuzzing with nothing that exists. */
  add(kind: string, id: string): void {
    const ids = this.own.get(kind) ?? [];
    ids.push(id);
    this.own.set(kind, ids.slice(-20));
  }

  /** One own id of every kind, as VALID_BODIES takes them. */
  latest(): Record<string, string> {
    return Object.fromEntries([...this.own].map(([kind, ids]) => [kind, ids[ids.length - 1]!]));
  }

  /** Any id of `kind` (any kind when absent): own, foreign or unknown. */
  id(kind?: string): fc.Arbitrary<string> {
    return fc.nat().map((n) => {
      const own = kind ? (this.own.get(kind) ?? []) : [...this.own.values()].flat();
      const foreign = kind ? [this.foreign[kind] ?? UNKNOWN_ID] : Object.values(this.foreign);
      const choices = [...own, ...own, ...foreign, UNKNOWN_ID];
      return choices[n % choices.length]!;
    });
  }
}

const LONG = 'x'.repeat(100_000);
/** Built once: building a string arbitrary costs far more than drawing from it. */
const anyJson = fc.jsonValue({ maxDepth: 2 });
/** Any code point, lone surrogates included (fast-check's own 'binary' unit takes seconds to build). */
const anyCharacter = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0, max: 0x10ffff })).map((code) => String.fromCodePoint(code));
const anyString = fc.string({ unit: anyCharacter, maxLength: 40 });

/** Strings no schema asks for. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDC00y',
  '\uFFFF',
  '\u202E',
  '😀',
  '%',
  '%00',
  '../..',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '-1',
  '0',
  '-0',
  '1.5',
  '1e309',
  '9'.repeat(40),
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  "' or 1=1 --",
  '"; drop table users; --',
  '<script>alert(1)</script>',
  '\\',
  '%s%n',
  '\r\n',
  'ü'.repeat(3000),
  LONG,
];

const HOSTILE_NUMBERS = [
  -1,
  -0.5,
  0.5,
  1.5,
  -0,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  2 ** 63,
  -(2 ** 63),
  1e308,
  -1e308,
  5e-324,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
];

/** An object whose own keys are ones a careless merge turns into prototype pollution. */
const pollutingObject = () => JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"toString":1}');

const nested = (depth: number, open: string, close: string, leaf = '1') => open.repeat(depth) + leaf + close.repeat(depth);

/** JSON values of the wrong kind, or of the right kind at its extremes. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom<unknown>(null, true, false, [], {}, [{}], [null], ['\u0000'], { '': '' }),
  fc.constant(null).map(pollutingObject),
  fc.constantFrom(50, 500).map((depth) => JSON.parse(nested(depth, '[', ']'))),
  anyJson,
);

/** Raw payloads that are not what JSON.stringify would make of anything. */
const RAW_PAYLOADS = [
  '',
  '{',
  '{"a":',
  'nul',
  '1e999',
  '{"a":1e999}',
  '{"a":-1e999}',
  '\uFEFF{}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  nested(5000, '[', ']'),
  nested(5000, '{"a":', '}'),
  '[' + '1,'.repeat(50_000) + '1]',
];

/** Sample texts that some string property somewhere accepts. */
const PLAUSIBLE_STRINGS = [
  'a@b.co',
  'user@example.com',
  'Name',
  'en',
  'en-US',
  'yes',
  'no',
  'public',
  'private',
  'standard',
  'custom',
  'text',
  'dropdown',
  'ejected',
  'active',
  '10/23/2013',
  '2013-10-23T00:48:50Z',
  '2013',
  '2013-10..2014',
  'Password1',
];

function stringFor(schema: Record<string, any>, ids: IdPool): fc.Arbitrary<string> {
  if (schema.format === 'date-filter') {
    return fc.constantFrom('2013', '2013-10', '2013-10-23', '2013-10-23T00:48', '2013-10-23T00:48:50.5+02:00', '2013..2014', '..2020-01-01');
  }
  const maxLength = Math.min(schema.maxLength ?? 40, 40);
  const minLength = Math.min(schema.minLength ?? 0, maxLength);
  const sized = anyString.filter((text) => text.length >= minLength && text.length <= maxLength);
  const choices: fc.Arbitrary<string>[] = [sized, fc.constantFrom(...PLAUSIBLE_STRINGS), ids.id()];
  const matching = schema.pattern ? patternStrings(schema.pattern) : undefined;
  return fc.oneof(...choices, ...(matching ? [matching] : []));
}

const byPattern = new Map<string, fc.Arbitrary<string> | undefined>();

/** Strings matching a pattern, where fast-check can build them (it cannot for lookaheads); built once per pattern. */
function patternStrings(pattern: string): fc.Arbitrary<string> | undefined {
  if (!byPattern.has(pattern)) {
    let matching: fc.Arbitrary<string> | undefined;
    try {
      matching = fc.stringMatching(new RegExp(pattern)).filter((text) => text.length <= 300);
    } catch {
      matching = undefined;
    }
    byPattern.set(pattern, matching);
  }
  return byPattern.get(pattern);
}

function numberFor(schema: Record<string, any>, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1000;
  const max = Math.max(schema.maximum ?? 100_000, min);
  return integer ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) }) : fc.double({ min, max, noNaN: true });
}

/** Defines each key as an own property, `__proto__` included (plain assignment would set the prototype). */
function withOwn(target: Record<string, unknown>, entries: [string, unknown][]): Record<string, unknown> {
  for (const [key, value] of entries) Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
  return target;
}

const hostileKeys = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', '', '\u0000', 'id', 'x'.repeat(1000)), anyString);

function objectFor(schema: Record<string, any>, ids: IdPool, depth: number): fc.Arbitrary<unknown> {
  const properties: Record<string, any> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const known = fc.tuple(
    ...Object.entries(properties).map(([name, property]) =>
      fc.tuple(fc.constant(name), fc.option(valueFor(property, ids, depth + 1), { nil: undefined, freq: required.has(name) ? 20 : 2 })),
    ),
  );
  const extra = schema.additionalProperties ?? Object.values(schema.patternProperties ?? {})[0];
  const extras =
    extra !== undefined && extra !== false
      ? fc.array(fc.tuple(fc.oneof(ids.id(), hostileKeys), valueFor(extra === true ? {} : extra, ids, depth + 1)), { maxLength: 4 })
      : fc.array(fc.tuple(hostileKeys, hostileValue), { maxLength: 1 });
  return fc
    .tuple(known, extras)
    .map(([entries, more]) => withOwn({}, [...entries.filter(([, value]) => value !== undefined), ...more] as [string, unknown][]));
}

/** A value the schema accepts, more or less. */
function validish(schema: Record<string, any> | undefined, ids: IdPool, depth: number): fc.Arbitrary<unknown> {
  if (!schema || typeof schema !== 'object' || depth > 5) return anyJson;
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.const !== undefined) return fc.constant(schema.const);
  const union: Record<string, any>[] | undefined = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((member) => valueFor(member, ids, depth + 1)));
  const types = [schema.type].flat().filter(Boolean) as string[];
  if (types.length > 1) return fc.oneof(...types.map((type) => validish({ ...schema, type }, ids, depth)));
  switch (types[0]) {
    case 'string':
      return stringFor(schema, ids);
    case 'integer':
    case 'number':
      return numberFor(schema, types[0] === 'integer');
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueFor(schema.items, ids, depth + 1), { maxLength: 4 });
    case 'object':
      return objectFor(schema, ids, depth);
    default:
      return fc.oneof(anyJson, fc.constantFrom(...PLAUSIBLE_STRINGS), ids.id());
  }
}

/** Mostly what the schema asks for, sometimes anything but. */
export function valueFor(schema: Record<string, any> | undefined, ids: IdPool, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 5, arbitrary: validish(schema, ids, depth) }, { weight: 1, arbitrary: hostileValue });
}

/** A body known to be valid, then perhaps one property spoiled, dropped or added, or the whole wrapped in an array. */
function mutated(route: ApiRoute, ids: IdPool): fc.Arbitrary<unknown> {
  const example = VALID_BODIES[route.key];
  if (!example) return hostileValue;
  const body = fc.constant(null).map(() => example(ids.latest()) as Record<string, unknown>);
  return fc.oneof(
    body,
    fc.tuple(body, fc.nat(), hostileValue).map(([value, n, spoiled]) => {
      const keys = Object.keys(value);
      return keys.length === 0 ? value : withOwn({ ...value }, [[keys[n % keys.length]!, spoiled]]);
    }),
    fc.tuple(body, fc.nat()).map(([value, n]) => {
      const copy = { ...value };
      delete copy[Object.keys(copy)[n % Math.max(1, Object.keys(copy).length)]!];
      return copy;
    }),
    fc.tuple(body, hostileKeys, hostileValue).map(([value, key, extra]) => withOwn({ ...value }, [[key, extra]])),
    body.map((value) => [value]),
  );
}

/** Percent-encodes UTF-8; a lone surrogate becomes U+FFFD, as any client would send it. */
const encode = (text: string) => encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8'));

/**
 * `inject` skips Node's HTTP parser; over HTTP a request line beyond its header limit is refused
 * with 431 before the app sees it, so longer URLs are no request a client can make.
 */
const URL_LIMIT = maxHeaderSize;

/** Escapes that do not decode to UTF-8, sent as they are. */
const BROKEN_ESCAPES = ['%', '%E0%A4%A', '%FF', '%C0%AF', '%00'];

function segmentFor(kind: string, ids: IdPool): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: ids.id(kind).map(encode) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS.filter((text) => text !== '')).map(encode) },
    { weight: 1, arbitrary: fc.constantFrom(...BROKEN_ESCAPES) },
  );
}

const SCIM_ATTRIBUTES = [
  'userName',
  'externalId',
  'displayName',
  'emails.value',
  'name.givenName',
  'id',
  'members.value',
  'meta.lastModified',
  'active',
  'x',
];
const SCIM_OPERATORS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le', 'pr', 'and', '('];

/** SCIM's query parameters (RFC 7644 §3.4.2): filters grammatical or not, paging at its extremes. */
function scimQuery(ids: IdPool): fc.Arbitrary<[string, unknown][]> {
  const filter = fc.oneof(
    fc
      .tuple(fc.constantFrom(...SCIM_ATTRIBUTES), fc.constantFrom(...SCIM_OPERATORS), fc.oneof(ids.id(), fc.constantFrom(...HOSTILE_STRINGS)))
      .map(([attribute, operator, value]) => `${attribute} ${operator} ${JSON.stringify(value)}`),
    anyString,
  );
  const entry = fc.oneof(
    fc.tuple(fc.constant('filter'), filter),
    fc.tuple(
      fc.constantFrom('startIndex', 'count'),
      fc.oneof(fc.integer(), fc.constantFrom(...HOSTILE_NUMBERS), fc.constantFrom(...HOSTILE_STRINGS)),
    ),
    fc.tuple(fc.constantFrom('attributes', 'excludedAttributes', 'sortBy'), fc.constantFrom(...SCIM_ATTRIBUTES, ...HOSTILE_STRINGS)),
  );
  return fc.array(entry, { maxLength: 3 });
}

/** The query of a v5 route from its querystring schema, with strangers now and then. */
function v5Query(route: ApiRoute, ids: IdPool): fc.Arbitrary<[string, unknown][]> {
  const properties: Record<string, any> = (route.schema.querystring as { properties?: Record<string, any> } | undefined)?.properties ?? {};
  const names = Object.keys(properties);
  const known =
    names.length === 0
      ? fc.constant<[string, unknown][]>([])
      : fc.array(fc.oneof(...names.map((name) => fc.tuple(fc.constant(name), valueFor(properties[name], ids)))), { maxLength: 3 });
  const strangers = fc.array(fc.tuple(fc.oneof(hostileKeys, fc.constantFrom('access_token', 'limit', 'offset')), hostileValue), { maxLength: 1 });
  return fc.tuple(known, strangers).map(([a, b]) => [...a, ...b]);
}

function queryText(entries: [string, unknown][]): string {
  const text = entries
    .filter(([, value]) => value !== undefined)
    .flatMap(([key, value]) =>
      [value].flat().map((item) => `${encode(key)}=${encode(typeof item === 'string' ? item : (JSON.stringify(item) ?? ''))}`),
    )
    .join('&');
  return text ? `?${text}` : '';
}

/** Every request the fuzzing may send to `route`. */
export function requestsFor(route: ApiRoute, ids: IdPool): fc.Arbitrary<FuzzRequest> {
  const segments = route.url.split('/');
  const kinds = segments.flatMap((segment, index) => (segment.startsWith(':') ? [segments[index - 1]!] : []));
  const params = fc.tuple(...kinds.map((kind) => segmentFor(kind, ids)));
  const query = route.api === 'scim' ? scimQuery(ids) : v5Query(route, ids);
  const hasBody = !['GET', 'DELETE'].includes(route.method);
  const body: fc.Arbitrary<string | undefined> = hasBody
    ? fc.oneof(
        {
          weight: 4,
          arbitrary: (route.schema.body ? valueFor(route.schema.body as Record<string, any>, ids) : hostileValue).map((value) =>
            JSON.stringify(value),
          ),
        },
        { weight: 4, arbitrary: mutated(route, ids).map((value) => JSON.stringify(value)) },
        { weight: 1, arbitrary: fc.constantFrom(...RAW_PAYLOADS) },
      )
    : fc.constant(undefined);
  return fc
    .tuple(params, query, body)
    .map(([values, entries, payload]) => {
      let index = 0;
      const path = fillPath(
        route,
        () => values[index++]!,
        (segment) => segment,
      ); // encoded already, or broken on purpose
      return { route, url: path + queryText(entries), ...(payload === undefined ? {} : { payload }) };
    })
    .filter((request) => request.url.length < URL_LIMIT);
}
