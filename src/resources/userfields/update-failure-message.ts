import type { FieldErrors } from '../../lib/domain-errors.js';

/** The summary line of a failed update that v5 clients look for (docs/behaviour.md, Errors). */
export function updateFailureMessage(fieldErrors: FieldErrors): string {
  if (fieldErrors.name === 'required') return 'name is required';
  if (fieldErrors.message === 'required') return 'message is required';
  return 'invalid value';
}
