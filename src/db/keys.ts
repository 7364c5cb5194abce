/**
 * The form in which a unique text (an email, a username, a category's name) is stored in its
 * `*_key` column and looked up: lower-cased, so uniqueness and lookups ignore case. Repositories
 * alone call this, so a key is always made the same way.
 */
export function lookupKey(text: string): string {
  return text.toLowerCase();
}
