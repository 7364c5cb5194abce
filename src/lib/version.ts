import { readFileSync } from 'node:fs';

/** The installed package's version, from its package.json (three folders above dist/src/lib). */
export const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
