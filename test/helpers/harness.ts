import { after, before, describe } from 'node:test';
import { Writable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import type { Engine } from '../../src/db/database.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import type { Scope } from '../../src/auth/scopes.js';
import { tokensService } from '../../src/auth/tokens.service.js';
import { ALL_ENGINES, createTestDatabase, engineSkip, type TestDatabase } from './database.js';
import { documentedResponses, type DocumentedResponses } from './documented-responses.js';
import { DEFAULT_PASSWORD_POLICY } from '../../src/lib/password-policy.js';

export interface Organization {
  id: string;
  token: string;
}

export type Response = LightMyRequestResponse & { json<T = any>(): T };

export interface RequestOptions {
  token?: string | null;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** A real app on a real database, reached through Fastify's real routing with `inject`. */
export class Harness {
  app!: ApiInstance;
  database!: TestDatabase;
  /** The first organization; requests use its token unless told otherwise. */
  org!: Organization;
  /** Every log line the app wrote. */
  readonly logs: string[] = [];
  /** Every response is checked against the OpenAPI document: the document says exactly what the server does. */
  private documented!: DocumentedResponses;
  /** Where the statements sent to the database go while `statementsOf` listens. */
  private statements: string[] | undefined;

  /** `options` override the app's defaults (a small `bodyLimit`, ...). */
  constructor(
    readonly engine: Engine,
    private readonly options: Partial<AppOptions> = {},
  ) {}

  async start(): Promise<void> {
    this.database = await createTestDatabase(this.engine, { onStatement: (sql) => this.statements?.push(sql) });
    const logs = this.logs;
    this.app = await buildApp({
      passwordPolicy: DEFAULT_PASSWORD_POLICY,
      db: this.database.db,
      logger: {
        level: 'info',
        stream: new Writable({
          write(chunk, _encoding, callback) {
            logs.push(String(chunk));
            callback();
          },
        }),
      },
      ...this.options,
    });
    await this.app.ready();
    this.documented = documentedResponses(this.app.swagger());
    this.org = await this.createOrganization('Test organization');
  }

  async stop(): Promise<void> {
    await this.app?.close();
    await this.database?.drop();
  }

  /** The statements sent to the database while `work` runs, as text without parameters. */
  async statementsOf(work: () => Promise<unknown>): Promise<string[]> {
    const statements: string[] = [];
    this.statements = statements;
    try {
      await work();
    } finally {
      this.statements = undefined;
    }
    return statements;
  }

  async createOrganization(name: string, scopes?: Scope[]): Promise<Organization> {
    const organization = await organizationsRepository(this.database.db).create(name);
    const { token } = await tokensService(this.database.db).create(organization.id, { scopes });
    return { id: organization.id, token };
  }

  async token(orgId: string, options: { scopes?: Scope[]; expiresDate?: Date } = {}): Promise<string> {
    return (await tokensService(this.database.db).create(orgId, options)).token;
  }

  async request(method: InjectOptions['method'], url: string, body?: unknown, options: RequestOptions = {}): Promise<Response> {
    const token = options.token === undefined ? this.org.token : options.token;
    const headers: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...options.headers };
    const path = url.startsWith('/') ? url : `/api/v5/${url}`;
    const response = (await this.app.inject({
      method,
      url: path,
      query: options.query,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
    })) as Response;
    this.documented.check(method!, path, response);
    return response;
  }

  get(url: string, options?: RequestOptions) {
    return this.request('GET', url, undefined, options);
  }
  post(url: string, body: unknown, options?: RequestOptions) {
    return this.request('POST', url, body, options);
  }
  put(url: string, body: unknown, options?: RequestOptions) {
    return this.request('PUT', url, body, options);
  }
  delete(url: string, options?: RequestOptions) {
    return this.request('DELETE', url, undefined, options);
  }

  /** POSTs and returns the new id, read from the `Location` header (fails loudly on anything but 201). */
  async create(collection: string, body: unknown, options?: RequestOptions): Promise<string> {
    const response = await this.post(collection, body, options);
    if (response.statusCode !== 201) {
      throw new Error(`POST ${collection} answered ${response.statusCode}: ${response.body}`);
    }
    return String(response.headers.location).split('/').pop()!;
  }
}

/** Declares the suite once per engine, each with its own fresh database and app (built with `options`). */
export function forEachEngine(name: string, body: (harness: Harness) => void, options: Partial<AppOptions> = {}): void {
  for (const engine of ALL_ENGINES) {
    describe(`${name} [${engine}]`, { skip: engineSkip(engine) }, () => {
      const harness = new Harness(engine, options);
      before(() => harness.start());
      after(() => harness.stop());
      body(harness);
    });
  }
}
