import { asRefusal, DomainError, unrendered, type FieldErrors, type MalformedPart } from '../lib/domain-errors.js';
import { ApiError, v5Refusal } from '../lib/errors.js';

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
  notFoundAt: (what: string) => scimError(404, `${what} not found`),
  invalidValue: (detail: string) => scimError(400, detail, 'invalidValue'),
  versionChanged: (current: string) =>
    scimError(412, `If-Match does not name the current version of the resource: it changed since it was read (now ${current})`),
  bulkUnsupported: () =>
    scimError(501, 'Bulk operations are not supported (ServiceProviderConfig: bulk.supported is false); send each request on its own'),
  rootSearchUnsupported: () =>
    scimError(501, 'Searching every resource type at once is not supported; POST the search to /Users/.search or /Groups/.search'),
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

/** Field errors as one detail, v5 properties named by their SCIM attributes (userfields by the attributes mapped onto them). */
function describe(fieldErrors: FieldErrors): string {
  return Object.entries(fieldErrors)
    .map(([property, message]) => `${SCIM_NAMES[property] ?? property}: ${message}`)
    .join('; ');
}

/** The scimType of each part a malformed request gets wrong. */
const SCIM_TYPE_OF: Record<MalformedPart, ScimType> = {
  body: 'invalidSyntax',
  filter: 'invalidFilter',
  path: 'invalidPath',
  mutability: 'mutability',
};

/**
 * A service's refusal in the SCIM shape, by its kind: a uniqueness conflict is 409 `uniqueness`,
 * field errors 400 `invalidValue` naming SCIM attributes, a malformed request 400 with the scimType
 * of what it gets wrong, a refusal of the whole request 400 `invalidSyntax`; a refused token or too
 * many attempts keep the status and headers v5 gives them.
 */
function scimRefusal(error: DomainError): ApiError {
  const refusal = asRefusal(error);
  switch (refusal.kind) {
    case 'conflict':
      return scimErrors.uniqueness(describe(refusal.fieldErrors));
    case 'invalid':
      return scimErrors.invalidValue(describe(refusal.fieldErrors));
    case 'notFound':
      return scimError(404, refusal.what === undefined ? refusal.message : `${refusal.what} not found`);
    case 'preconditionFailed':
      return scimError(412, refusal.message);
    case 'malformed':
      return scimError(400, refusal.message, SCIM_TYPE_OF[refusal.part]);
    case 'refused':
      return scimErrors.invalidSyntax(refusal.message);
    case 'unauthenticated':
    case 'throttled':
      return fromV5(v5Refusal(refusal));
  }
  return unrendered(refusal);
}

/** A refusal of the protocol, made in the v5 shapes (a validator's field errors, a 401, a 413), in the SCIM shape. */
function fromV5(error: ApiError): ApiError {
  if (isScimError(error)) return error;
  const { fieldErrors, message, errors } = error.body;
  if (error.statusCode === 400 && fieldErrors && Object.keys(fieldErrors).length > 0) return scimErrors.invalidValue(describe(fieldErrors));
  const detail = message ?? errors?.join(' ') ?? 'The request was refused';
  const scimType = error.statusCode === 400 ? 'invalidSyntax' : undefined;
  return scimError(error.statusCode, detail, scimType, error.headers);
}

/** Any refusal in the SCIM shape: a service's by its kind, the protocol's keeping its status with its message. */
export function toScimError(error: ApiError | DomainError): ApiError {
  return error instanceof DomainError ? scimRefusal(error) : fromV5(error);
}
