import type { SessionLifetimes } from './sessions.service.js';

/** People's sign-in as the configuration sets it (SESSION_IDLE_TIMEOUT, SESSION_MAX_AGE, SMTP_URL, MAIL_FROM, OPERATOR_TOKEN). */
export interface PeopleSettings {
  sessions: SessionLifetimes;
  /** The server operator's secret, which signs in at /o/operator; none: no operator's pages. */
  operatorToken?: string;
  /** The SMTP server of the mails, and their sender; none: no mail is sent. */
  mail?: { url: string; from: string };
}

/** Keycloak's defaults: 30 minutes idle, 10 hours at most; no mail. */
export const DEFAULT_PEOPLE_SETTINGS: PeopleSettings = { sessions: { idleMs: 30 * 60_000, maxMs: 10 * 3600_000 } };

/** How long a link to choose a new password works. */
export const RESET_LINK_MINUTES = 30;
