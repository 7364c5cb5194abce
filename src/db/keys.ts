/**
 * The form in which a unique text (an email, a username, a category's name) is stored in its
 * `*_key` column and looked up: lower-cased, so uniqueness and lookups ignore case. Every key is
 * made here: by the repositories, and by the seed command where it writes rows in bulk.
 */
export function lookupKey(text: string): string {
  return text.toLowerCase();
}
