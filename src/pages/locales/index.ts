import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import type { Messages } from './messages.js';

/** The languages the pages speak, by code (`en`, `fr`): every `<code>.js` file of this folder. */
export type Languages = ReadonlyMap<string, Messages>;

export const DEFAULT_LANGUAGE = 'en';
const LANGUAGE_FILE = /^[a-z]{2}\.js$/;

/** Loads every language file of this folder (a new language is a new file: `de.ts` with a default export of Messages). */
export async function loadLanguages(): Promise<Languages> {
  const folder = new URL('./', import.meta.url);
  const files = readdirSync(folder).filter((file) => LANGUAGE_FILE.test(file));
  const languages = new Map<string, Messages>();
  for (const file of files.sort()) {
    const module = (await import(new URL(file, folder).href)) as { default: Messages };
    languages.set(basename(file, '.js'), module.default);
  }
  if (!languages.has(DEFAULT_LANGUAGE)) throw new Error(`The pages' default language (${DEFAULT_LANGUAGE}.js) is missing`);
  return languages;
}

/** The languages of an Accept-Language header, best first (q=0 dropped). */
function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [range = '', ...parameters] = part.trim().split(';');
      const quality = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { language: range.trim().toLowerCase().split('-')[0]!, q: quality ? Number(quality.slice(2)) : 1, index };
    })
    .filter(({ language, q }) => language !== '' && q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map(({ language }) => language);
}

/**
 * The language of a page: the person's locale when they have one the pages speak (`fr-CA` → `fr`),
 * else the browser's first choice the pages speak, else English.
 */
export function languageOf(languages: Languages, locale: string | undefined, acceptLanguage: string | undefined): string {
  for (const candidate of [locale?.split('-')[0]?.toLowerCase(), ...acceptedLanguages(acceptLanguage)]) {
    if (candidate && languages.has(candidate)) return candidate;
  }
  return DEFAULT_LANGUAGE;
}
