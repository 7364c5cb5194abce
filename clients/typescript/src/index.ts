import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };
export type Schemas = components['schemas'];
export type User = Schemas['User'];
export type Userfield = Schemas['Userfield'];
export type UserfieldCategory = Schemas['UserfieldCategory'];
export type Offering = Schemas['Offering'];
export type OfferingCategory = Schemas['OfferingCategory'];
export type Registration = Schemas['Registration'];

type Method = 'get' | 'post' | 'put' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** The paths that have the method `M`. */
type PathsWith<M extends Method> = { [P in keyof paths]: [Operation<P, M>] extends [never] ? never : P }[keyof paths];

type ParametersOf<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: infer Q } ? Q : never;
/** The path parameters of an operation (`{ id }`), or nothing. */
export type PathParams<P extends keyof paths, M extends Method> = ParametersOf<P, M> extends { path: infer A } ? A : never;
/** The path parameters as an argument: none for a path without any (`api.get('/agreements')`). */
type ParamsArgument<P extends keyof paths, M extends Method> = [PathParams<P, M>] extends [never] ? [] : [params: PathParams<P, M>];
/** The query parameters of a list (limit, offset and its filters). */
export type Query<P extends ListPath> = ParametersOf<P, 'get'> extends { query?: infer Q } ? NonNullable<Q> : never;
/** The paths whose GET answers a page: `results`, and `next` when more follow. */
export type ListPath = {
  [P in PathsWith<'get'>]: Json<Operation<P, 'get'>['responses'][200]> extends { results: unknown[] } ? P : never;
}[PathsWith<'get'>];
/** An item of the list at `P`. */
export type ItemOf<P extends ListPath> = Json<Operation<P, 'get'>['responses'][200]> extends { results: (infer I)[] } ? I : never;
/** What GET answers at `P`. */
export type Answer<P extends PathsWith<'get'>> = Json<Operation<P, 'get'>['responses'][200]>;
/** The body of a POST or PUT at `P`. */
export type Body<P extends keyof paths, M extends 'post' | 'put'> =
  NonNullable<Operation<P, M> extends { requestBody?: infer B } ? B : never> extends { content: { 'application/json': infer T } } ? T : never;
/** The paths where POST creates an item (answering 201 with its Location). */
export type CreatePath = { [P in PathsWith<'post'>]: 201 extends keyof Operation<P, 'post'>['responses'] ? P : never }[PathsWith<'post'>];

/** A refusal's body, in the v5 shapes: `fieldErrors` for 400, `errors` otherwise. */
export interface ErrorBody {
  message?: string;
  fieldErrors?: Record<string, string>;
  errors?: string[];
}

/** The server refused the request: the status, and what it said. */
export class ApiError extends Error {
  /** For a 400: what is wrong with each property, by name (empty otherwise). */
  readonly fieldErrors: Record<string, string>;
  readonly errors: string[];
  /** The X-Request-Id of the answer: the server's logs know it. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (409, 429, 503). */
  readonly retryAfter: number | undefined;

  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    response: Response,
  ) {
    super(body.message ?? body.errors?.join(' ') ?? `HTTP ${status}`);
    this.name = new.target.name;
    this.fieldErrors = body.fieldErrors ?? {};
    this.errors = body.errors ?? [];
    this.requestId = response.headers.get('x-request-id') ?? undefined;
    this.retryAfter = Number(response.headers.get('retry-after')) || undefined;
  }
}
/** 400: the request (its body or query) is invalid; `fieldErrors` says why. */
export class ValidationError extends ApiError {}
/** 401: no valid access token. */
export class AuthenticationError extends ApiError {}
/** 403: the token lacks the scope the operation needs. */
export class PermissionError extends ApiError {}
/** 404: nothing has this id (in the token's organization). */
export class NotFoundError extends ApiError {}
/**
 * 429 or 503 after every retry, or 409 (another request with the same Idempotency-Key is still
 * running): try again later (`retryAfter` says when).
 */
export class UnavailableError extends ApiError {}

const ERRORS: Record<number, typeof ApiError> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: UnavailableError,
  429: UnavailableError,
  503: UnavailableError,
};

/** A body that is no JSON object (a bare text or number, or none) as the one message of an error. */
function messageOf(body: string | number | boolean | null | undefined, response: Response): string {
  return body === null || body === undefined ? response.statusText : String(body);
}

function refusal(response: Response, body: unknown): ApiError {
  const ErrorClass = ERRORS[response.status] ?? ApiError;
  const errorBody =
    body !== null && typeof body === 'object'
      ? (body as ErrorBody)
      : { errors: [messageOf(body as string | number | boolean | undefined, response)] };
  return new ErrorClass(response.status, errorBody, response);
}

export interface ClientOptions {
  /** The API's base URL: `https://training.example.com/api/v5`. */
  baseUrl: string;
  /** An access token (`training-api tokens create`, or from /oauth/token). */
  token: string;
  /**
   * How often a request answered 429 or 503, or lost on the network, is tried again (default 2),
   * after the Retry-After the server gives or a short pause. A write keeps its Idempotency-Key
   * across the attempts, so the server can recognise a repeat: it answers the first attempt's answer
   * again, or 409 while the first attempt still runs, which is retried the same way.
   */
  retries?: number;
  /** The fetch to send requests with (default: the global one), e.g. one with a custom TLS agent. */
  fetch?: (request: Request) => Promise<Response>;
}

const RETRYABLE = new Set([409, 429, 503]);
/** Never wait longer than this between attempts, whatever Retry-After says. */
const MAX_PAUSE_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function pauseBefore(attempt: number, response?: Response): number {
  const retryAfter = Number(response?.headers.get('retry-after'));
  const ms = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 250 * 2 ** attempt;
  return Math.min(ms, MAX_PAUSE_MS);
}

/** A fetch that retries, with one Idempotency-Key per write for all its attempts. */
function retrying(send: (request: Request) => Promise<Response>, retries: number): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      let response: Response;
      try {
        response = await send(last ? request : request.clone());
      } catch (error) {
        if (last) throw error;
        await sleep(pauseBefore(attempt));
        continue;
      }
      if (last || !RETRYABLE.has(response.status)) return response;
      await response.body?.cancel();
      await sleep(pauseBefore(attempt, response));
    }
  };
}

/** The new item's id: the last segment of the Location. */
function idOf(location: string | null): string {
  const id = location?.split('?')[0]!.split('/').filter(Boolean).pop();
  if (!id) throw new Error('The server answered 201 without a Location');
  return decodeURIComponent(id);
}

type Loose = Client<Record<string, any>>;

/**
 * The Training Platform REST API v5, typed from its OpenAPI document. `http` is the complete
 * openapi-fetch client (every operation, typed); the methods below cover the common cases and turn
 * refusals into exceptions.
 */
export class TrainingApiClient {
  readonly http: Client<paths>;

  constructor(options: ClientOptions) {
    // Refused here, before anything is sent: an unset variable would otherwise go out as `Bearer undefined`.
    if (typeof options.token !== 'string' || options.token.trim() === '') {
      throw new TypeError('createClient: token is required (an access token: training-api tokens create, or one from /oauth/token)');
    }
    this.http = createFetchClient<paths>({
      baseUrl: options.baseUrl.replace(/\/$/, ''),
      headers: { authorization: `Bearer ${options.token}` },
      fetch: retrying(options.fetch ?? ((request) => globalThis.fetch(request)), options.retries ?? 2),
    });
  }

  private get loose(): Loose {
    return this.http;
  }

  private static async unwrap<T>(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<{ data: T; response: Response }> {
    const { data, error, response } = await call;
    if (!response.ok) throw refusal(response, error);
    return { data: data as T, response };
  }

  /** Every item of the list at `path`, page after page (following `next`), as they are needed. */
  async *list<P extends ListPath>(
    path: P,
    options: { query?: Query<P> } & ([PathParams<P, 'get'>] extends [never] ? { path?: never } : { path: PathParams<P, 'get'> }) = {} as never,
  ): AsyncGenerator<ItemOf<P>, void, undefined> {
    let query: Record<string, unknown> | undefined = options.query;
    for (;;) {
      const { data } = await TrainingApiClient.unwrap<{ results: ItemOf<P>[]; next?: string }>(
        this.loose.GET(path, { params: { path: options.path, query } }),
      );
      yield* data.results;
      if (!data.next) return;
      query = Object.fromEntries(new URL(data.next).searchParams);
    }
  }

  /** GET of one item (or one document, such as an agreement). */
  async get<P extends PathsWith<'get'>>(path: P, ...[params]: ParamsArgument<P, 'get'>): Promise<Answer<P>> {
    return (await TrainingApiClient.unwrap<Answer<P>>(this.loose.GET(path, { params: { path: params } }))).data;
  }

  /** POST: creates the item and returns its id, read from the Location of the 201. */
  async create<P extends CreatePath>(path: P, body: Body<P, 'post'>): Promise<string> {
    const { response } = await TrainingApiClient.unwrap(this.loose.POST(path, { body }));
    return idOf(response.headers.get('location'));
  }

  /** PUT: changes what the body names (204). */
  async update<P extends PathsWith<'put'>>(path: P, ...args: [...ParamsArgument<P, 'put'>, body: Body<P, 'put'>]): Promise<void> {
    const [params, body] = args.length === 2 ? args : [undefined, args[0]];
    await TrainingApiClient.unwrap(this.loose.PUT(path, { params: { path: params }, body }));
  }

  /** DELETE (204). */
  async delete<P extends PathsWith<'delete'>>(path: P, ...[params]: ParamsArgument<P, 'delete'>): Promise<void> {
    await TrainingApiClient.unwrap(this.loose.DELETE(path, { params: { path: params } }));
  }
}

export function createClient(options: ClientOptions): TrainingApiClient {
  return new TrainingApiClient(options);
}
