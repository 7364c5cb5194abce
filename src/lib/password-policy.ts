/**
 * The password policy: the original service's 6-character minimum by default, since existing v5
 * clients create users with such passwords; an operator may raise it (PASSWORD_MIN_LENGTH; NIST
 * SP 800-63B asks for 8). The configuration makes one, and every component that checks a password
 * (the users service, whoever calls it, and the routes' validation, SCIM, the imports) receives it.
 */
export const DEFAULT_PASSWORD_MIN_LENGTH = 6;
export const PASSWORD_MAX_LENGTH = 64;

export interface PasswordPolicy {
  /** The shortest password accepted, in characters. */
  readonly minLength: number;
}

export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = { minLength: DEFAULT_PASSWORD_MIN_LENGTH };

/** The v5 refusal, naming the policy's minimum. */
export function passwordMessage(policy: PasswordPolicy): string {
  return `The password must be ${policy.minLength} to ${PASSWORD_MAX_LENGTH} characters long and contain at least one letter and one number`;
}

const LETTER = /\p{L}/u;
const NUMBER = /\p{N}/u;

/** Long enough and not too long (in characters, not UTF-16 units), with a letter and a number. */
export function isAcceptablePassword(policy: PasswordPolicy, password: string): boolean {
  const length = [...password].length;
  return length >= policy.minLength && length <= PASSWORD_MAX_LENGTH && LETTER.test(password) && NUMBER.test(password);
}

/** At least one letter and one number, in either order: the policy's rule as a JSON Schema `pattern`. */
const PASSWORD_PATTERN = '\\p{L}[\\s\\S]*\\p{N}|\\p{N}[\\s\\S]*\\p{L}';

/**
 * The OpenAPI document's passwords (`format: password`) as the policy of this server checks them:
 * `minLength` the configured minimum, `maxLength` and the letter-and-number `pattern`.
 */
export function documentPasswordPolicy(minimum: number): <T>(document: T) => T {
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    const schema = value as Record<string, unknown>;
    if (schema.format === 'password') Object.assign(schema, { minLength: minimum, maxLength: PASSWORD_MAX_LENGTH, pattern: PASSWORD_PATTERN });
    Object.values(schema).forEach(visit);
  };
  return (document) => {
    visit(document);
    return document;
  };
}
