import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import type { LightMyRequestResponse } from 'fastify';

/**
 * Checks that a response is one the OpenAPI document promises: its status is documented for the
 * operation, its body validates against the documented schema (or is empty where none is), and the
 * headers the document requires are present. Requests outside the document (SCIM, /docs, probes)
 * are not checked; an API address the document does not know must answer a documented refusal.
 */
export interface DocumentedResponses {
  check(method: string, url: string, response: LightMyRequestResponse): void;
}

const API_BASE = /^(?:\/dc)?\/api\/v5(?=\/|$)/;

interface Operation {
  pattern: RegExp;
  method: string;
  pointer: string;
  responses: Record<string, any>;
}

/** The path as the router sees it (`/api/v5/%75sers` is /users). */
function decoded(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The checks of each document a process has seen, by its text: the apps of a test file mostly serve the same
 * document, and its schemas are then compiled once, not once per app.
 */
const byDocument = new Map<string, DocumentedResponses>();

export function documentedResponses(document: any): DocumentedResponses {
  const text = JSON.stringify(document);
  let checks = byDocument.get(text);
  if (!checks) byDocument.set(text, (checks = documentChecks(JSON.parse(text))));
  return checks;
}

function documentChecks(document: any): DocumentedResponses {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, validateSchema: false, inlineRefs: false });
  ajv.addSchema(document, 'openapi');
  const validators = new Map<string, ValidateFunction>();
  function validatorAt(pointer: string): ValidateFunction {
    let validate = validators.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi#${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  }
  const resolve = (value: any): any =>
    value?.$ref
      ? value.$ref
          .slice(2)
          .split('/')
          .reduce((node: any, key: string) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], document)
      : value;

  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths ?? {})) {
    const servedFromRoot = item.servers?.some((server: { url: string }) => server.url === '/');
    const full = `${servedFromRoot ? '' : '/api/v5'}${path}`;
    const pattern = new RegExp(`^${full.replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
    for (const [method, operation] of Object.entries<any>(item)) {
      if (operation?.responses) {
        operations.push({ pattern, method, pointer: `/paths/${escapePointer(path)}/${method}`, responses: operation.responses });
      }
    }
  }

  function checkBody(where: string, status: number, schemaPointer: string | undefined, response: LightMyRequestResponse): void {
    if (!schemaPointer) {
      if (response.body !== '') throw new Error(`${where} answered ${status} with a body, where the document promises none: ${response.body}`);
      return;
    }
    const validate = validatorAt(schemaPointer);
    if (!validate(JSON.parse(response.body))) {
      throw new Error(`${where} answered ${status} with a body the document does not describe: ${ajv.errorsText(validate.errors)}\n${response.body}`);
    }
  }

  return {
    check(method, url, response) {
      const path = decoded(url.split('?', 1)[0]!).replace(API_BASE, '/api/v5');
      const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
      const matching = operations.filter((operation) => operation.pattern.test(path));
      const operation = matching.find((candidate) => candidate.method === verb);
      const status = response.statusCode;
      const where = `${method} ${url}`;
      if (!operation) {
        if (!API_BASE.test(path) || path === '/api/v5/openapi.json') return;
        if (![400, 401, 403, 404, 405, 406, 429, 500, 503].includes(status)) {
          throw new Error(`${where} answered ${status}, but the document has no such operation`);
        }
        checkBody(where, status, `/components/schemas/${status === 400 ? 'ValidationErrors' : 'Errors'}`, response);
        return;
      }
      const documented = operation.responses[String(status)];
      if (!documented) throw new Error(`${where} answered ${status}, which the document does not list for this operation`);
      const resolved = resolve(documented);
      for (const [name, header] of Object.entries<any>(resolved.headers ?? {})) {
        if (resolve(header).required && response.headers[name.toLowerCase()] === undefined) {
          throw new Error(`${where} answered ${status} without the ${name} header the document requires`);
        }
      }
      if (verb !== method.toLowerCase()) return;
      const pointer = documented.$ref
        ? `${documented.$ref.slice(1)}/content/application~1json/schema`
        : resolved.content
          ? `${operation.pointer}/responses/${status}/content/application~1json/schema`
          : undefined;
      checkBody(where, status, pointer, response);
    },
  };
}
