/**
 * The password policy: the original service's 6-character minimum by default, since existing v5
 * clients create users with such passwords; an operator may raise it (PASSWORD_MIN_LENGTH; NIST
 * SP 800-63B asks for 8). The configuration makes one, and every component that checks a password
 * (the routes' validation, SCIM, the imports) receives it.
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
