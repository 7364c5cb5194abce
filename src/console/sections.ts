import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../auth/caller.js';
import type { SessionWithUser } from '../accounts/sessions.repository.js';
import type { Html } from '../pages/html.js';
import type { OrganizationRequest, PageRoutesOptions } from '../pages/page-routes.js';
import type { AccountType } from '../resources/users/users.schemas.js';

/** A request of the console, by a person the section admits. */
export interface ConsoleRequest extends OrganizationRequest {
  session: SessionWithUser;
  /** Who speaks to the services: the person, through the console. */
  caller: Caller;
}

/** A page's title and body, and the scripts it needs beyond the console's own (Chart.js for the reports). */
export interface ConsoleContent {
  title: string;
  body: Html;
  scripts?: readonly string[];
}

/** What a section's routes are given: the pages' tools, and the console's own. */
export interface ConsoleTools extends PageRoutesOptions {
  /**
   * The request of a person the section admits, or undefined once answered otherwise: anyone not signed
   * in is sent to sign in (and back), a person with required steps left to them, a learner or an
   * administrator the section is not for gets a 403 page.
   */
  consoleRequest(request: FastifyRequest, reply: FastifyReply, section: ConsoleSection): Promise<ConsoleRequest | undefined>;
  /** Answers a page of the section, with the console's navigation. */
  sendConsolePage(reply: FastifyReply, request: ConsoleRequest, section: ConsoleSection, content: ConsoleContent, statusCode?: number): FastifyReply;
  /** The console's address in the organization: `/o/<orgId>/console`. */
  base(request: OrganizationRequest): string;
}

/** A part of the console: its address under the console, who may open it, and its routes. */
export interface ConsoleSection {
  id: string;
  title: string;
  /** Under /o/<orgId>/console: '' for the overview, else `/<id>`. */
  path: string;
  /** The kinds of account it is for; a learner has no console at all. */
  allowed: readonly Exclude<AccountType, 'learner'>[];
  routes(app: FastifyInstance, tools: ConsoleTools): void;
}

export const EVERY_ADMINISTRATOR = ['organizationAdministrator', 'courseAdministrator'] as const;
export const ORGANIZATION_ADMINISTRATORS = ['organizationAdministrator'] as const;
