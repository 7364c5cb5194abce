import { hash, randomBytes } from 'node:crypto';

/**
 * Every secret the server hands out: 256 random bits behind a prefix that names its kind, so that a
 * secret is recognized wherever it turns up (a log line, a pasted URL) and a malformed one is refused
 * without a database lookup.
 */
export const SECRET_PREFIXES = {
  /** An access token made with `training-api tokens create`. */
  apiToken: 'tpa_',
  /** An access token issued by POST /oauth/token. */
  oauthToken: 'tpo_',
  /** An OAuth client's secret. */
  clientSecret: 'tpcs_',
  /** A person's session, in its cookie. */
  session: 'tps_',
  /** A forgotten password's one-time link. */
  passwordReset: 'tpr_',
} as const;

/** Whether `secret` is one of ours of this kind, by its form alone. */
export function isWellFormedSecret(secret: string, prefix: string): boolean {
  return secret.length === prefix.length + SECRET_BODY_LENGTH && secret.startsWith(prefix) && /^[A-Za-z0-9_-]+$/.test(secret.slice(prefix.length));
}

/** 32 random bytes in base64url. */
const SECRET_BODY_LENGTH = 43;

export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** SHA-256 in hex: the secrets are random and long, so a fast hash is enough to keep them unreadable at rest. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

const ACCESS_TOKEN = new RegExp(`^(?:${SECRET_PREFIXES.apiToken}|${SECRET_PREFIXES.oauthToken})[A-Za-z0-9_-]{${SECRET_BODY_LENGTH}}$`);

/** Whether `token` could be an access token at all; anything else is refused before any lookup. */
export function isWellFormedAccessToken(token: string): boolean {
  return ACCESS_TOKEN.test(token);
}

/** Anything that looks like one of our secrets, anywhere in a text (log redaction). */
export const SECRET_IN_TEXT = new RegExp(`(?:${Object.values(SECRET_PREFIXES).join('|')})[A-Za-z0-9_-]{8,}`, 'g');
