/**
 * What services refuse, in no API's words. Each edge renders them in its own shape, in one place: the
 * v5 API (`v5Refusal` in errors.ts, through plugins/errors.ts), SCIM (`toScimError` in
 * scim/scim-errors.ts), OAuth (as an `invalid_request` of RFC 6749) and the command line.
 */
export abstract class DomainError extends Error {}

/** Why each property of a request is refused, by property name. */
export type FieldErrors = Record<string, string>;

/** A uniqueness conflict (email, username, a category's name), in v5's words. */
export const IN_USE_MESSAGE = 'is already in use';

/** What is said of an id that names nothing the caller may see, as a whole refusal or of one property. */
export const NOT_FOUND_MESSAGE = 'No resource exists with the given id.';

/** No such resource in the caller's organization: another organization's is not found either. */
export class NotFound extends DomainError {
  constructor() {
    super(NOT_FOUND_MESSAGE);
    this.name = 'NotFound';
  }
}

/** Values unique within an organization that another resource already holds, by property. */
export class Conflict extends DomainError {
  constructor(readonly properties: readonly string[]) {
    super(`${properties.join(' and ')} ${IN_USE_MESSAGE}`);
    this.name = 'Conflict';
  }

  /** The conflict as field errors, as v5 gives it. */
  get fieldErrors(): FieldErrors {
    return Object.fromEntries(this.properties.map((property) => [property, IN_USE_MESSAGE]));
  }
}

/** Properties of a request refused, each with why; `summary` replaces the message made of them. */
export class Invalid extends DomainError {
  constructor(
    readonly fieldErrors: FieldErrors,
    readonly summary?: string,
  ) {
    super(
      summary ??
        Object.entries(fieldErrors)
          .map(([property, problem]) => `${property}: ${problem}`)
          .join('; '),
    );
    this.name = 'Invalid';
  }
}

/** A request refused as a whole by the state of what it changes (a category still holding fields, ...). */
export class Refused extends DomainError {
  constructor(problem: string) {
    super(problem);
    this.name = 'Refused';
  }
}

/** The resource is not in the state the request's precondition (If-Match, If-None-Match) names. */
export class PreconditionFailed extends DomainError {
  constructor(problem: string) {
    super(problem);
    this.name = 'PreconditionFailed';
  }
}

/** The refusal of one item of a batch written as a whole (an import's batch of users): `index` says which. */
export class RefusedItem extends Error {
  constructor(
    readonly index: number,
    readonly refusal: unknown,
  ) {
    super(refusal instanceof Error ? refusal.message : String(refusal));
    this.name = 'RefusedItem';
  }
}
