/** Tags arrive as a list whose entries may hold several tags separated by commas or spaces. */
export function normalizeTags(input: readonly string[]): string[] {
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

/** A tag filter (`tags=a,b c`) → the tags an item must all have. */
export function parseTagFilter(input: string): string[] {
  return normalizeTags([input]);
}
