import { DomainError, type FieldErrors } from '../lib/domain-errors.js';
import { ApiError, v5Refusal } from '../lib/errors.js';

/** A write refused by its schema or its service, as a form shows it: the status, the words, and the fields named. */
export interface FormRefusal {
  statusCode: number;
  message: string;
  fieldErrors: FieldErrors;
}

/**
 * What `work` returns, or its refusal as the API would give it (a 4xx of the v5 shapes, from a schema's
 * validator or a service's domain error), for the page to show beside what was typed. Anything else
 * is thrown again: it is no refusal but a fault.
 */
export async function refusedOr<T>(work: () => Promise<T>): Promise<{ value: T; refusal?: undefined } | { refusal: FormRefusal }> {
  try {
    return { value: await work() };
  } catch (error) {
    const answer = error instanceof DomainError ? v5Refusal(error) : error;
    if (!(answer instanceof ApiError) || answer.statusCode >= 500) throw error;
    const { message, errors, fieldErrors } = answer.body;
    return { refusal: { statusCode: answer.statusCode, message: message ?? errors?.join(' ') ?? answer.message, fieldErrors: fieldErrors ?? {} } };
  }
}
