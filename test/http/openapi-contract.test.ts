import { writeFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { parseDateFilter } from '../../src/lib/date-filter.js';
import { DocumentValues, type Schema } from '../helpers/document-values.js';
import { forEachEngine, type Response } from '../helpers/harness.js';
import { seedOrganization, type SeededOrganization } from '../helpers/tenants.js';

/** Requests per operation; CONTRACT_RUNS raises it, CONTRACT_SEED replays a run. */
const RUNS = Number(process.env.CONTRACT_RUNS ?? 25);
const SEED = Number(process.env.CONTRACT_SEED ?? Date.now() % 2 ** 31);

/**
 * The refusals of a request the document allows that the document cannot foresee, each with the
 * operations it may come from, its status and its words. Any other refusal of a document-valid request
 * fails the test: the document then allows what the server does not take, and a generated client or a
 * contract-testing tool (Schemathesis) would find it.
 */
interface Refusal {
  reason: string;
  operations: RegExp;
  status: number;
  /** The whole body (refusals in `errors`, and other statuses)... */
  body?: RegExp;
  /** ...or each of a 400's field errors, `name: message`: a response is accepted when every one of them is. */
  fieldError?: RegExp;
}

const DATA_DEPENDENT: Refusal[] = [
  { reason: 'existence: an id the caller does not have (deleted earlier in the run, or made up)', operations: /./, status: 404, body: /./ },
  {
    reason: 'existence: a property or filter naming an id the organization does not have',
    operations: /./,
    status: 400,
    fieldError: /: No resource exists with the given id\.$/,
  },
  {
    reason: 'existence: an event id that names no event of the organization',
    operations: /^GET \/events$/,
    status: 400,
    fieldError: /^after: names no event of the organization/,
  },
  {
    reason: 'uniqueness: an email, username or name another item already has',
    operations: /^(POST|PUT) \//,
    status: 400,
    fieldError: /already (in use|exists|taken)|is not unique|already has/i,
  },
  {
    reason: 'uniqueness: the user already has an active registration for the offering (or completed it, without retakes)',
    operations: /^POST \/registrations$/,
    status: 400,
    body: /"errors":\["The user (already has an active registration for this offering|has already completed this offering)/,
  },
  {
    reason: "uniqueness within the request: option names compared case-insensitively (JSON Schema's uniqueItems compares exactly)",
    operations: /^(POST|PUT) \/userfields/,
    status: 400,
    fieldError: /^options\[\d+\]\.name: repeats the name of an earlier option/,
  },
  { reason: 'state: a concurrent or conflicting change', operations: /./, status: 409, body: /./ },
  {
    reason: 'state: a category still holding userfields is not deleted',
    operations: /^DELETE \/userfieldcategories\/:id$/,
    status: 400,
    body: /still contains userfields/,
  },
  {
    reason: "state: a category's type does not change while it holds fields",
    operations: /^PUT \/userfieldcategories\/:id$/,
    status: 400,
    fieldError: /^type: cannot be changed/,
  },
  {
    reason: 'state: the category named has another type than categoryType, or categoryName names another category than categoryId',
    operations: /^(POST|PUT) \/userfields/,
    status: 400,
    fieldError: /^categoryType: does not match the category|^categoryName: names another category than categoryId/,
  },
  {
    reason: "state: which properties apply (and whether a name may be cleared) depends on the stored field's type",
    operations: /^PUT \/userfields\/:id$/,
    status: 400,
    fieldError: /: not applicable to type|^(name|message): required$|^type: cannot be changed|^options: at most one option may be selected/,
  },
  {
    reason: 'state: a deactivated user, or an offering closed for registration, is not registered',
    operations: /^POST \/registrations$/,
    status: 400,
    fieldError: /^(userId: The user is deactivated|offeringId: The offering is not open for registration)/,
  },
  {
    reason:
      'state: a status other than ejected is set by a grade (the current one changes nothing), a graded registration is not ejected, nor one ejected already',
    operations: /^PUT \/registrations\/:id$/,
    status: 400,
    fieldError:
      /^status: (can only be set to "ejected"|eject status not available after the registration has been graded|the registration is already ejected)/,
  },
  {
    reason: 'state: the custom agreement (the path names it) is always required',
    operations: /^PUT \/agreements\/:type$/,
    status: 400,
    fieldError: /^required: the custom agreement is always required$/,
  },
  {
    reason: 'time: recovering from a moment in the future, or older than the events kept',
    operations: /^POST \/webhooks\/:id\/recover$/,
    status: 400,
    fieldError: /^since: (must not be in the future|must be \S+ or later: events are kept)/,
  },
  {
    reason:
      'order: an end before its start (a date range, endDate, registrationEndDate) or a minimum above its maximum, which JSON Schema cannot compare',
    operations: /^(GET|POST|PUT) \//,
    status: 400,
    fieldError: /^[\w.]+: (must not be before \w+|must not exceed \w+|must be a date such as .*)$/,
  },
];

/** The rule that accepts a refusal, if any. */
function acceptedBy(operation: string, status: number, body: string, search: URLSearchParams): Refusal[] | undefined {
  const rules = DATA_DEPENDENT.filter((rule) => rule.status === status && rule.operations.test(operation));
  const whole = rules.find((rule) => rule.body?.test(body));
  if (whole) return [whole];
  const fieldErrors: Record<string, string> | undefined = status === 400 ? JSON.parse(body).fieldErrors : undefined;
  if (!fieldErrors || Object.keys(fieldErrors).length === 0) return undefined;
  const matched: Refusal[] = [];
  for (const [name, message] of Object.entries(fieldErrors)) {
    const rule = rules.find(
      (candidate) =>
        candidate.fieldError?.test(`${name}: ${message}`) &&
        (!message.startsWith('must be a date such as') || isOrderRefusal(search.get(name) ?? '')),
    );
    if (!rule) return undefined;
    matched.push(rule);
  }
  return matched;
}

/**
 * A date filter refused though the document's pattern allows it: a range whose ends each hold alone
 * (so the end comes before the start), or a moment an offset moves out of the years 0001-9999.
 */
function isOrderRefusal(value: string): boolean {
  const ends = value.split('/');
  const reversed = ends.length === 2 && ends.every((end) => end === '..' || parseDateFilter(end) !== undefined);
  return reversed || /(^|\/)(0001|9999)/.test(value);
}

/** Operations not exercised here, with the reason. */
const NOT_EXERCISED: { operation: RegExp; reason: string }[] = [
  { operation: /^POST \/oauth\//, reason: 'authenticated by client credentials in a form body, tested in test/oauth/' },
  { operation: /^POST \/imports$/, reason: 'the body is a file (CSV, NDJSON, Excel), tested in test/imports/' },
];

interface Operation {
  key: string;
  method: string;
  path: string;
  parameters: { name: string; in: string; required?: boolean; schema?: Schema }[];
  body?: Schema;
}

function operationsOf(document: Schema): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(document.paths)) {
    for (const [method, operation] of Object.entries<Schema>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      operations.push({
        key: `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
        method: method.toUpperCase(),
        path,
        parameters: [...(item.parameters ?? []), ...(operation.parameters ?? [])],
        body: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  // Writes first, deletions last, so the reads and writes find what they name.
  const order = ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'];
  return operations.sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method));
}

forEachEngine('The OpenAPI document as a contract: every operation with generated valid data', (h) => {
  let document: Schema;
  let caller: SeededOrganization;
  let values: DocumentValues;
  let ajv: Ajv2020;

  before(async () => {
    document = (await h.get('/api/v5/openapi.json', { token: null })).json();
    caller = await seedOrganization(h, 'contractorg');
    const kinds: Record<string, string> = {
      categoryId: 'userfieldcategories',
      offeringCategoryId: 'offeringcategories',
      offeringCategoryIds: 'offeringcategories',
      userId: 'users',
      offeringId: 'offerings',
    };
    values = new DocumentValues(document, (property) => (kinds[property] ? caller.ids[kinds[property]] : undefined));
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addFormat('password', true);
    ajv.addFormat('date-filter', true);
    ajv.addSchema({ $id: 'doc', components: document.components });
  });

  /** A path parameter: an id is the caller's own of the kind the segment before it names; others (`type`) as their schema says. */
  function pathValue(operation: Operation, name: string): fc.Arbitrary<string> {
    const segments = operation.path.split('/');
    const kind = name === 'id' ? segments[segments.indexOf(`{${name}}`) - 1]! : name;
    if (caller.ids[kind] !== undefined) return fc.constant(null).map(() => caller.ids[kind]!);
    const schema = operation.parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.schema;
    // Any other text names no agreement: a 404, which the list above accepts.
    if (name === 'type')
      return fc.oneof({ weight: 9, arbitrary: fc.constantFrom('standard', 'custom') }, { weight: 1, arbitrary: values.value(schema).map(String) });
    assert.ok(schema?.enum, `no ${kind} id for ${operation.key}, and no values in its schema`);
    return values.value(schema).map(String);
  }

  /** The document's own verdict on a value, compiled once per schema. */
  function validator(schema: Schema): (value: unknown) => boolean {
    const compiled = ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/')));
    return (value) => compiled(value);
  }

  it(`accepts every request the document allows, but for the data-dependent refusals it lists (${RUNS} an operation)`, async (t) => {
    const operations = operationsOf(document);
    const skipped: string[] = [];
    const refusals = new Map<string, number>();
    const problems: string[] = [];
    let sent = 0;
    for (const operation of operations) {
      const excluded = NOT_EXERCISED.find((entry) => entry.operation.test(operation.key));
      if (excluded) {
        skipped.push(`${operation.key} (${excluded.reason})`);
        continue;
      }
      const query = operation.parameters.filter((parameter) => parameter.in === 'query');
      const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
      // What the generator draws is checked against the document itself: only requests it allows are sent.
      const request = fc.record({
        params: fc.tuple(...names.map((name) => pathValue(operation, name))),
        query: fc.tuple(
          ...query.map((parameter) => {
            const valid = validator(parameter.schema ?? {});
            const value = values.value(parameter.schema).filter(valid);
            return fc.option(
              value.map((drawn) => [parameter.name, drawn] as const),
              {
                nil: undefined,
                freq: parameter.required ? Number.MAX_SAFE_INTEGER : 2,
              },
            );
          }),
        ),
        body: operation.body ? values.value(operation.body).filter(validator(operation.body)) : fc.constant(undefined),
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ params, query: entries, body }) => {
          const search = new URLSearchParams();
          for (const entry of entries) if (entry) search.append(entry[0], typeof entry[1] === 'string' ? entry[1] : JSON.stringify(entry[1]));
          let index = 0;
          const path = operation.path.replace(/\{(\w+)\}/g, () => encodeURIComponent(params[index++]!));
          const url = `/api/v5${path}${search.size > 0 ? `?${search.toString()}` : ''}`;
          const response: Response = await h.app.inject({
            method: operation.method as never,
            url,
            headers: { authorization: `Bearer ${caller.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
          });
          sent++;
          if (response.statusCode < 400) {
            if (response.statusCode === 201 && response.headers.location) {
              const kind = operation.path.split('/').filter(Boolean).pop()!;
              caller.ids[kind] = String(response.headers.location).split('/').pop()!;
            }
            return;
          }
          const accepted = acceptedBy(operation.key, response.statusCode, response.body, search);
          if (accepted) {
            for (const rule of new Set(accepted)) {
              const key = `${operation.key} ${response.statusCode} (${rule.reason})`;
              refusals.set(key, (refusals.get(key) ?? 0) + 1);
            }
          } else {
            problems.push(
              `${operation.method} ${url} ${body === undefined ? '' : JSON.stringify(body).slice(0, 300)} → ${response.statusCode} ${response.body.slice(0, 300)}`,
            );
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
    t.diagnostic(`${sent} requests over ${operations.length - skipped.length} operations, seed ${SEED}`);
    t.diagnostic(`not exercised: ${skipped.join('; ')}`);
    t.diagnostic(`data-dependent refusals accepted: ${[...refusals].map(([key, count]) => `${key} ×${count}`).join('; ') || 'none'}`);
    if (process.env.CONTRACT_OUT) writeFileSync(process.env.CONTRACT_OUT, problems.join('\n'));
    assert.deepEqual(problems.slice(0, 40), [], `${problems.length} refusals of requests the document allows; seed ${SEED}`);
  });
});
