// `npm run docs:settings`: writes the settings table of src/config.ts (as built in dist/) into the
// table of docs/configuration.md; test/config.test.ts fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { settingsTable } from '../dist/src/config.js';

const PAGE = 'docs/configuration.md';
const text = readFileSync(PAGE, 'utf8');
const start = text.indexOf('| Variable | Default | Meaning |');
const end = text.indexOf('\n\n', start);
if (start < 0 || end < 0) throw new Error(`${PAGE}: no settings table (a line starting "| Variable | Default | Meaning |")`);
writeFileSync(PAGE, `${text.slice(0, start)}${settingsTable()}${text.slice(end)}`);
