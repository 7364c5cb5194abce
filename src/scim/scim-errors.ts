import { Conflict, DomainError, Invalid, NotFound, PreconditionFailed, type FieldErrors } from '../lib/domain-errors.js';
import { ApiError } from '../lib/errors.js';

/**
 * SCIM refusals (RFC 7644 §3.12): `{"schemas": [Error], "status": "400", "scimType": ..., "detail": ...}`.
 * They travel as ApiErrors whose body already has that shape, so the one error pipeline carries
 * them; the shared services' refusals (lib/domain-errors.ts) and the protocol's v5 ones are rendered
 * by `toScimError`.
 */
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

interface ScimErrorBody {
  schemas: [typeof ERROR_SCHEMA];
  status: string;
  scimType?: ScimType;
  detail: string;
}

function scimError(status: number, detail: string, scimType?: ScimType, headers: Record<string, string> = {}): ApiError {
  const body: ScimErrorBody = { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
  return new ApiError(status, body as never, headers);
}

export function isScimError(error: ApiError): boolean {
  return (error.body as { schemas?: unknown }).schemas !== undefined;
}

export const scimErrors = {
  notFound: (resource: 'User' | 'Group', id: string) => scimError(404, `${resource} ${id} not found`),
  notFoundAt: (what: string) => scimError(404, `${what} not found`),
  invalidValue: (detail: string) => scimError(400, detail, 'invalidValue'),
  versionChanged: (current: string) =>
    scimError(412, `If-Match does not name the current version of the resource: it changed since it was read (now ${current})`),
  bulkUnsupported: () =>
    scimError(501, 'Bulk operations are not supported (ServiceProviderConfig: bulk.supported is false); send each request on its own'),
  invalidSyntax: (detail: string) => scimError(400, detail, 'invalidSyntax'),
  invalidFilter: (detail: string) => scimError(400, detail, 'invalidFilter'),
  invalidPath: (detail: string) => scimError(400, detail, 'invalidPath'),
  noTarget: (detail: string) => scimError(400, detail, 'noTarget'),
  mutability: (detail: string) => scimError(400, detail, 'mutability'),
  uniqueness: (detail: string) => scimError(409, detail, 'uniqueness'),
  unsupportedMediaType: () => scimError(415, 'A request body must be sent with Content-Type: application/scim+json or application/json'),
  notAcceptable: () => scimError(406, 'This API produces application/scim+json (or application/json); the Accept header excludes both'),
};

/** The SCIM attribute behind each v5 property a shared service may name in a refusal. */
const SCIM_NAMES: Record<string, string> = {
  email: 'emails',
  username: 'userName',
  firstName: 'name.givenName',
  lastName: 'name.familyName',
  locale: 'locale',
  password: 'password',
  active: 'active',
  tags: 'groups',
};

function describe(fieldErrors: FieldErrors, names: (property: string) => string): string {
  return Object.entries(fieldErrors)
    .map(([property, message]) => `${names(property)}: ${message}`)
    .join('; ');
}

/**
 * Any refusal in the SCIM shape. A service's uniqueness conflict becomes 409 `uniqueness`, field
 * errors 400 `invalidValue` naming SCIM attributes (`names` resolves the rest, e.g. userfield ids
 * to the attributes mapped onto them), a refusal of the whole request 400 `invalidSyntax`, and the
 * protocol's refusals keep their status with their message.
 */
export function toScimError(
  error: ApiError | DomainError,
  names: (property: string) => string = (property) => SCIM_NAMES[property] ?? property,
): ApiError {
  const resolve = (property: string) => SCIM_NAMES[property] ?? names(property);
  if (error instanceof DomainError) {
    if (error instanceof Conflict) return scimErrors.uniqueness(describe(error.fieldErrors, resolve));
    if (error instanceof Invalid) return scimErrors.invalidValue(describe(error.fieldErrors, resolve));
    if (error instanceof NotFound) return scimError(404, error.message);
    if (error instanceof PreconditionFailed) return scimError(412, error.message);
    return scimError(400, error.message, 'invalidSyntax');
  }
  if (isScimError(error)) return error;
  const { fieldErrors, message, errors } = error.body;
  if (error.statusCode === 400 && fieldErrors && Object.keys(fieldErrors).length > 0) return scimErrors.invalidValue(describe(fieldErrors, resolve));
  const detail = message ?? errors?.join(' ') ?? 'The request was refused';
  const scimType = error.statusCode === 400 ? 'invalidSyntax' : undefined;
  return scimError(error.statusCode, detail, scimType, error.headers);
}
