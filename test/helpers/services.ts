import { after, before, describe } from 'node:test';
import type { Kysely } from 'kysely';
import type { Caller } from '../../src/auth/caller.js';
import { DEFAULT_SCOPES } from '../../src/auth/scopes.js';
import type { Engine } from '../../src/db/database.js';
import type { Database } from '../../src/db/schema.js';
import { organizationsRepository } from '../../src/tenancy/organizations.repository.js';
import { TEST_ACTOR } from './actors.js';
import { ALL_ENGINES, createTestDatabase, engineSkip, type TestDatabase } from './database.js';

/**
 * The service tier: services called directly on a test database (a copy of the run's migrated
 * template), with no app, no routes and no HTTP, for the rules a service keeps whoever calls it.
 * A file of them runs in a fraction of the time of the same checks through `forEachEngine`'s app.
 */
export class ServiceBed {
  database!: TestDatabase;
  /** A caller of the first organization, with the scopes of a new token. */
  caller!: Caller;

  constructor(readonly engine: Engine) {}

  get db(): Kysely<Database> {
    return this.database.db;
  }

  async start(): Promise<void> {
    this.database = await createTestDatabase(this.engine);
    this.caller = await this.newOrganization('Test organization');
  }

  /** A caller of a new organization: another tenant, whose resources the first one's caller must not see. */
  async newOrganization(name: string): Promise<Caller> {
    const { id } = await organizationsRepository(this.db).create(name);
    return { orgId: id, tokenId: 'test', scopes: DEFAULT_SCOPES, actor: TEST_ACTOR };
  }
}

/** A suite per engine (the one not available skipped, saying why), each on a database of its own. */
export function forEachEngineService(name: string, body: (bed: ServiceBed) => void): void {
  for (const engine of ALL_ENGINES) {
    describe(`${name} [${engine}]`, { skip: engineSkip(engine) }, () => {
      const bed = new ServiceBed(engine);
      before(() => bed.start());
      after(() => bed.database?.drop());
      body(bed);
    });
  }
}
