import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasPendingActions } from '../accounts/profile.service.js';
import type { Caller } from '../auth/caller.js';
import { personActor } from '../lib/actors.js';
import { html } from '../pages/html.js';
import { PageError, type OrganizationRequest, type PageRoutesOptions } from '../pages/page-routes.js';
import { consoleAssetRoutes } from './assets.js';
import { consolePage } from './console-page.js';
import type { ConsoleRequest, ConsoleSection, ConsoleTools } from './sections.js';

/** A learner opens no console; an administrator no section that is not theirs. */
export const notForYou = () =>
  new PageError(
    403,
    () => 'Not your part of the console',
    () => 'Your account cannot open this part of the console. Ask an organization administrator if you need it.',
  );

/** The person acting through the console, as the services take a caller (the change stream names them by their email). */
export function consoleCaller(orgId: string, person: { id: string; email: string }): Caller {
  return { orgId, tokenId: `console:${person.id}`, scopes: ['read', 'write'], actor: personActor(person) };
}

/**
 * The administrators' console under /o/<orgId>/console: server-rendered pages over the same services as
 * the API (no second write path), for organization administrators (every section) and course
 * administrators (offerings and registrations). `sections` are the console's parts, in the order of its
 * navigation; each registers its own routes.
 */
export function consoleRoutes(sections: readonly ConsoleSection[]) {
  return (app: FastifyInstance, options: PageRoutesOptions): void => {
    consoleAssetRoutes(app);

    async function consoleRequest(request: FastifyRequest, reply: FastifyReply, section: ConsoleSection): Promise<ConsoleRequest | undefined> {
      const organizationRequest = await options.organizationRequest(request, reply);
      const { organization, session } = organizationRequest;
      if (!session) {
        const back = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
        reply.redirect(`/o/${organization.id}/sign-in${back}`, 303);
        return undefined;
      }
      const kind = session.account_type;
      if (kind === null || !section.allowed.includes(kind)) throw notForYou();
      if (hasPendingActions(await options.profile.pending(organization.id, session.user_id))) {
        reply.redirect(
          `/o/${organization.id}/continue?next=${encodeURIComponent(request.method === 'GET' ? request.url : base(organizationRequest))}`,
          303,
        );
        return undefined;
      }
      return { ...organizationRequest, session, caller: consoleCaller(organization.id, { id: session.user_id, email: session.email }) };
    }

    const base = (request: OrganizationRequest) => `/o/${request.organization.id}/console`;

    const tools: ConsoleTools = {
      ...options,
      consoleRequest,
      base,
      sendConsolePage(reply, request, section, content, statusCode = 200) {
        const kind = request.session.account_type!;
        const visible = sections.filter((candidate) => candidate.allowed.includes(kind));
        reply.code(statusCode).type('text/html; charset=utf-8');
        return reply.send(consolePage(request.context, visible, section, content).text);
      },
    };
    for (const section of sections) section.routes(app, tools);
  };
}

/** The console's first page: where each part is, for the person's kind of account. */
export const overviewSection: ConsoleSection = {
  id: 'overview',
  title: 'Overview',
  path: '',
  allowed: ['organizationAdministrator', 'courseAdministrator'],
  routes(app, tools) {
    app.get('/:orgId/console', { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, overviewSection);
      if (!person) return reply;
      return tools.sendConsolePage(reply, person, overviewSection, {
        title: 'Console',
        body: html`<p>Manage ${person.organization.name} from here: use the navigation to open a part of the console.</p>`,
      });
    });
  },
};
