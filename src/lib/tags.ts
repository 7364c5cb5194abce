import { Invalid } from './domain-errors.js';

/** Tags arrive as a list whose entries may hold several tags separated by commas or spaces. */
function normalizeTags(input: readonly string[]): string[] {
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const entry of input) {
    for (const tag of entry.split(/[\s,]+/)) {
      const key = tag.toLowerCase();
      if (tag && !seen.has(key)) {
        seen.add(key);
        tags.push(tag);
      }
    }
  }
  return tags;
}

/**
 * Tags are stored in one column, joined by single spaces (a tag never holds a space or a comma),
 * which the `hasWord` filter reads; no tags is NULL.
 */
export function tagsColumn(tags: readonly string[] | null | undefined): string | null {
  return tags ? normalizeTags(tags).join(' ') || null : null;
}

export function tagsOf(column: string | null): string[] | undefined {
  return column ? column.split(' ') : undefined;
}

/** The tags with `tag` added at the end, unless one of them already is it (case-insensitive). */
export function withTag(tags: readonly string[], tag: string): string[] {
  return tags.some((t) => t.toLowerCase() === tag.toLowerCase()) ? [...tags] : [...tags, tag];
}

/** The tags without `tag` (case-insensitive). */
export function withoutTag(tags: readonly string[], tag: string): string[] {
  return tags.filter((t) => t.toLowerCase() !== tag.toLowerCase());
}

/** Each tag of a filter is one more SQL condition, and SQLite refuses a statement with about 1000. */
const MAX_FILTER_TAGS = 100;

/** A tag filter (`tags=a,b c`) → the tags an item must all have; more than MAX_FILTER_TAGS → 400 naming `parameter`. */
export function parseTagFilter(parameter: string, input: string): string[] {
  const tags = normalizeTags([input]);
  if (tags.length > MAX_FILTER_TAGS) throw new Invalid({ [parameter]: `must name at most ${MAX_FILTER_TAGS} tags` });
  return tags;
}
