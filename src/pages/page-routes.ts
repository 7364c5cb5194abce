import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { PasswordResetsService } from '../accounts/password-resets.service.js';
import type { ProfileService } from '../accounts/profile.service.js';
import type { SessionWithUser } from '../accounts/sessions.repository.js';
import type { SessionsService } from '../accounts/sessions.service.js';
import type { SignInService } from '../accounts/sign-in.service.js';
import type { Database } from '../db/schema.js';
import { asRefusal, unrendered, type DomainError } from '../lib/domain-errors.js';
import type { PasswordPolicy } from '../lib/password-policy.js';
import type Provider from 'oidc-provider';
import type { ClientInfo } from '../oauth/clients.service.js';
import type { CsrfTokens } from './cookies.js';
import type { ImportSettings } from '../lib/import-settings.js';
import type { page, PageContext } from './layout.js';
import type { Languages } from './locales/index.js';
import type { Messages } from './locales/messages.js';
import type { FormBody } from './userfield-inputs.js';

/** The people's pages: sign-in, the account page, required actions, forgotten passwords, and the sign-in of applications. */
export interface PagesOptions {
  db: Kysely<Database>;
  languages: Languages;
  csrfKey: () => Promise<Buffer>;
  sessions: SessionsService;
  signIn: SignInService;
  profile: ProfileService;
  resets: PasswordResetsService;
  /** What a password must be, for the services the console calls with one (an import's). */
  passwordPolicy: PasswordPolicy;
  /** How an import sizes its batches and hashes passwords, for the console's imports as for the API's. */
  imports: ImportSettings;
  /** Where webhooks may post and how far a recovery reaches (the webhooks service's settings), for the console's webhooks as for the API's. */
  webhooks: { allowInsecureLoopback: boolean; retentionDays: number };
  /** The server operator's secret (OPERATOR_TOKEN); none: the operator's pages answer 404. */
  operatorToken?: string;
  /** More routes on the pages' tools (the administrators' console). */
  extraRoutes?: readonly ((app: FastifyInstance, options: PageRoutesOptions) => void)[];
  /** The OpenID Connect provider, for the sign-in of the organization's applications. */
  oidc?: {
    providerFor(issuer: string): Promise<Provider>;
    issuerOf(request: FastifyRequest): string;
    clientOf(clientId: string): Promise<ClientInfo | undefined>;
  };
}

/** A refusal a page answers with a page: its status, and the words of `messages` for it. */
export class PageError extends Error {
  constructor(
    readonly statusCode: number,
    readonly title: (t: Messages) => string,
    readonly text: (t: Messages) => string,
  ) {
    super(`page refused with ${statusCode}`);
    this.name = 'PageError';
  }
}

export const pageErrors = {
  notFound: () =>
    new PageError(
      404,
      (t) => t.errors.notFoundTitle,
      (t) => t.errors.notFound,
    ),
  expiredForm: () =>
    new PageError(
      403,
      (t) => t.errors.forbiddenTitle,
      (t) => t.errors.expiredForm,
    ),
  badRequest: () =>
    new PageError(
      400,
      (t) => t.errors.somethingWrong,
      (t) => t.errors.badRequest,
    ),
};

/**
 * A service's refusal that no route answered beside its form, as a page, by its kind: nothing to
 * see is the 404 page, anything else the request's fault (routes that expect a refusal, a wrong
 * password or a sign-in refused, answer it on their own page first).
 */
export function pageRefusal(error: DomainError): PageError {
  const refusal = asRefusal(error);
  switch (refusal.kind) {
    case 'notFound':
      return pageErrors.notFound();
    case 'invalid':
    case 'conflict':
    case 'malformed':
    case 'refused':
    case 'preconditionFailed':
    case 'unauthenticated':
    case 'throttled':
      return pageErrors.badRequest();
  }
  return unrendered(refusal);
}

/** A request of an organization's pages, with what its handlers need. */
export interface OrganizationRequest {
  organization: { id: string; name: string };
  /** The person signed in to this organization in this browser, if any. */
  session?: SessionWithUser;
  context: PageContext;
  form: FormBody;
}

/**
 * Where to go after a sign-in or a required step: only an address of these pages (the organization's
 * own, or an application's sign-in in progress), never another site: `next` comes from the address bar.
 */
export function safeNext(next: unknown, orgId: string): string | undefined {
  if (typeof next !== 'string' || next.length > 2048) return undefined;
  if (!/^\/(?:o\/[0-9a-f]{32}\/[\w\-/]*|interaction\/[\w-]+)(?:\?[\w\-=&%.]*)?$/.test(next)) return undefined;
  if (next.startsWith('/o/') && !next.startsWith(`/o/${orgId}/`)) return undefined;
  return next;
}

/** What each module of page routes is given. */
export interface PageRoutesOptions extends PagesOptions {
  csrf: CsrfTokens;
  organizationRequest(request: FastifyRequest, reply: FastifyReply): Promise<OrganizationRequest>;
  messagesOf(request: FastifyRequest, locale?: string | null): { language: string; t: Messages };
  sendPage(reply: FastifyReply, statusCode: number, context: PageContext, content: Parameters<typeof page>[1]): FastifyReply;
  /** The key the throttle counts an address under. */
  addressOf(request: FastifyRequest): string;
}
