/**
 * What services refuse, in no API's words. Every refusal has a `kind` from one closed union
 * (`DomainRefusal['kind']`), and each edge renders it with a `switch` on that kind that names every
 * kind and ends on `unrendered` (never): the v5 API (`v5Refusal` in errors.ts, through
 * plugins/errors.ts, and the console's forms through it), SCIM (`toScimError` in
 * scim/scim-errors.ts), the imports (`rowProblemsOf` in imports/check.ts) and the people's pages
 * (`pageRefusal` in pages/page-errors.ts). A kind added here fails the type check, and the lint's
 * switch-exhaustiveness-check, at every edge that does not render it (docs/decisions/0019).
 */
export abstract class DomainError extends Error {
  /** Which refusal this is: the edges switch on it. A subclass names one of the union's kinds. */
  abstract readonly kind: DomainRefusal['kind'];

  /** `problem` is the message; the name is the class's (NotFound, Conflict, ...). */
  constructor(problem: string) {
    super(problem);
    this.name = new.target.name;
  }
}

/** Why each property of a request is refused, by property name. */
export type FieldErrors = Record<string, string>;

/** A uniqueness conflict (email, username, a category's name), in v5's words. */
export const IN_USE_MESSAGE = 'is already in use';

/** What is said of an id that names nothing the caller may see, as a whole refusal or of one property. */
export const NOT_FOUND_MESSAGE = 'No resource exists with the given id.';

/** No such resource in the caller's organization: another organization's is not found either. */
export class NotFound extends DomainError {
  readonly kind = 'notFound';
  /** `what`, when given, names what was looked for ("User <id>"), for the APIs that say it (SCIM). */
  constructor(readonly what?: string) {
    super(NOT_FOUND_MESSAGE);
  }
}

/**
 * Values unique within an organization that another resource already holds, by property: "name
 * taken", however the service found it out. `problem` says how, when more than "is already in use".
 */
export class Conflict extends DomainError {
  readonly kind = 'conflict';
  constructor(
    readonly properties: readonly string[],
    readonly problem: string = IN_USE_MESSAGE,
  ) {
    super(`${properties.join(' and ')} ${problem}`);
  }

  /** The conflict as field errors, as v5 gives it. */
  get fieldErrors(): FieldErrors {
    return Object.fromEntries(this.properties.map((property) => [property, this.problem]));
  }
}

/** Properties of a request refused, each with why; `summary` replaces the message made of them. */
export class Invalid extends DomainError {
  readonly kind = 'invalid';
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
  }
}

/**
 * What a malformed request gets wrong, for the protocols that name it (SCIM's scimType): the body
 * itself, a filter, an attribute path, or a change to what cannot change.
 */
export type MalformedPart = 'body' | 'filter' | 'path' | 'mutability';

/** A request refused as a whole for its form rather than for one property's value. */
export class Malformed extends DomainError {
  readonly kind = 'malformed';
  constructor(
    readonly part: MalformedPart,
    problem: string,
  ) {
    super(problem);
  }
}

/** A request refused as a whole by the state of what it changes (a category still holding fields, ...). */
export class Refused extends DomainError {
  readonly kind = 'refused';
}

/** The resource is not in the state the request's precondition (If-Match, If-None-Match) names. */
export class PreconditionFailed extends DomainError {
  readonly kind = 'preconditionFailed';
}

/** The credentials given (an access token, an email and password) identify no one who may act: the message says why. */
export class Unauthenticated extends DomainError {
  readonly kind = 'unauthenticated';
}

/** Too many attempts: try again after `retryAfterMs`. */
export class Throttled extends DomainError {
  readonly kind = 'throttled';
  constructor(
    problem: string,
    readonly retryAfterMs: number,
  ) {
    super(problem);
  }
}

/**
 * Every refusal a service makes: the closed union the edges switch on. A new refusal is a class
 * above with a new kind, added here; each edge then fails to compile until it renders it.
 */
export type DomainRefusal = NotFound | Conflict | Invalid | Malformed | Refused | PreconditionFailed | Unauthenticated | Throttled;

/**
 * The refusal `error` is, for an edge's switch. Every DomainError is one of the union (its kind is
 * one of the union's): this only tells the compiler so.
 */
export function asRefusal(error: DomainError): DomainRefusal {
  return error as DomainRefusal;
}

/**
 * Where an edge's switch on the kind ends: reached only if a kind is missing from the switch, which
 * the type check refuses (`refusal` is then not `never`).
 */
export function unrendered(refusal: never): never {
  throw new Error(`No rendering for the refusal ${(refusal as DomainError).kind}`, { cause: refusal });
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
