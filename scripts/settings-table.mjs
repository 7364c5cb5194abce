// `npm run docs:settings`: writes the settings table of src/config.ts (as built in dist/) into the
// README's Configuration section; test/config.test.ts fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { settingsTable } from '../dist/src/config.js';

const README = 'README.md';
const text = readFileSync(README, 'utf8');
const start = text.indexOf('| Variable | Default | Meaning |');
const end = text.indexOf('\n\n', start);
if (start < 0 || end < 0) throw new Error(`${README}: no settings table (a line starting "| Variable | Default | Meaning |")`);
writeFileSync(README, `${text.slice(0, start)}${settingsTable()}${text.slice(end)}`);
