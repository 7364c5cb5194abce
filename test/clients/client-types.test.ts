import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { CLIENT_DIR, generatedFiles } from '../../clients/typescript/scripts/generate.js';

it('the typed client is generated from the current OpenAPI document (else: npm run client:generate)', async () => {
  for (const [path, content] of Object.entries(await generatedFiles())) {
    const committed = readFileSync(join(CLIENT_DIR, path), 'utf8');
    assert.ok(committed === content, `clients/typescript/${path} is stale: run npm run client:generate and commit the result`);
  }
});
