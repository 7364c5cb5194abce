import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { buildApp } from '../../../src/app.js';
import { migrateToLatest, openDatabase } from '../../../src/db/database.js';
import { DEFAULT_PASSWORD_POLICY } from '../../../src/lib/password-policy.js';

/** clients/typescript in the repository, from dist/clients/typescript/scripts/. */
export const CLIENT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../clients/typescript');

const HEADER = '// Generated from the OpenAPI document by `npm run client:generate`; do not edit.\n\n';

/** The OpenAPI document the server publishes, and the client's types generated from it, by path under clients/typescript. */
export async function generatedFiles(): Promise<Record<string, string>> {
  const database = openDatabase('sqlite::memory:');
  try {
    await migrateToLatest(database.db);
    // The document of a server with the default policy: the published one names its minimum.
    const app = await buildApp({ db: database.db, passwordPolicy: DEFAULT_PASSWORD_POLICY });
    await app.ready();
    const document = app.swagger();
    await app.close();
    const types = astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
    return { 'openapi.json': `${JSON.stringify(document, null, 2)}\n`, 'src/schema.ts': `${HEADER}${types}` };
  } finally {
    await database.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [path, content] of Object.entries(await generatedFiles())) {
    const target = join(CLIENT_DIR, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
    console.log(`wrote ${join('clients/typescript', path)}`);
  }
}
