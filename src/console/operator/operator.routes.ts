import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RESET_LINK_MINUTES, type ResetMail } from '../../accounts/password-resets.service.js';
import { SignInRefused, SignInThrottled } from '../../accounts/sign-in.service.js';
import type { Caller } from '../../auth/caller.js';
import { OPERATOR_ACTOR } from '../../lib/actors.js';
import { inTransaction } from '../../db/unit-of-work.js';
import { Invalid } from '../../lib/domain-errors.js';
import { isId } from '../../lib/ids.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, notice, type PageContext } from '../../pages/layout.js';
import { pageErrors, type PageRoutesOptions } from '../../pages/page-routes.js';
import { resetLinkOf } from '../../pages/password-reset.routes.js';
import type { FormBody } from '../../pages/userfield-inputs.js';
import { bodyValidator } from '../../plugins/validation.js';
import { organizationsRepository } from '../../tenancy/organizations.repository.js';
import { organizationsService, type Organization } from '../../tenancy/organizations.service.js';
import { fillSandbox, resetSandbox, SANDBOX_SAMPLE } from '../../tenancy/sandbox.js';
import { CreateUser } from '../../resources/users/users.schemas.js';
import { usersService } from '../../resources/users/users.service.js';
import { CONSOLE_SCRIPT_PATH } from '../assets.js';
import { dataTable, secretOnce, when } from '../console-page.js';
import { buttonForm, checkboxControl, formValue, inputControl, refusalNotice } from '../form-controls.js';
import { refusedOr, type FormRefusal } from '../form-refusal.js';
import { operatorSessions } from './operator-session.js';

/** The operator's pages, under the pages' /o: no organization's id is `operator`. */
const PATH = '/operator';
const HOME = `/o${PATH}`;
const SIGN_IN = `${HOME}/sign-in`;

/** What the list says after a change, by the `done` of its address. */
const DONE: Record<string, string> = {
  invited: 'The organization is created, and its first administrator invited: the link to choose a password is on its way by mail.',
  reset: 'The sandbox is reset: its sample people, userfields, offerings and registrations are made again.',
};

/** A request of the operator's pages: its words, the form token, and the form. */
interface OperatorRequest {
  context: PageContext;
  form: FormBody;
}

/** The organization form as typed, and why it was refused. */
interface OrganizationDraft {
  name: string;
  email: string;
  sandbox: boolean;
}

/** The operator, acting on an organization through its services. */
const operatorCaller = (orgId: string): Caller => ({ orgId, tokenId: 'operator', scopes: ['read', 'write'], actor: OPERATOR_ACTOR });

/**
 * The server operator's pages at /o/operator: the organizations, a new one with its first administrator
 * invited by mail (or a link shown once), and the reset of a sandbox. The operator is no organization's
 * person: they sign in with OPERATOR_TOKEN, checked and throttled as a password is, into a session of an
 * hour (operator-session.ts). Without OPERATOR_TOKEN every page is a 404. The pages share the people's
 * pages' rules: CSRF in every form, the console's CSP, no secret in an address.
 */
export function operatorPages(app: FastifyInstance, options: PageRoutesOptions): void {
  const token = options.operatorToken;
  const sessions = token ? operatorSessions(options.csrfKey, token) : undefined;
  const organizations = organizationsService(options.db);
  const validCreation = bodyValidator(CreateUser, options.passwordPolicy);

  async function operatorRequest(request: FastifyRequest, reply: FastifyReply): Promise<OperatorRequest> {
    // A form without this browser's token is refused as on every page, before anything else is said.
    const form = (request.body ?? {}) as FormBody;
    if (request.method === 'POST' && !(await options.csrf.verify(request, form._csrf))) throw pageErrors.expiredForm();
    if (!sessions) throw pageErrors.notFound();
    const { language, t } = options.messagesOf(request);
    return { context: { t, language, csrf: await options.csrf.issue(request, reply) }, form };
  }

  /** The request of the operator signed in; anyone else is sent to the operator's sign-in (an organization's administrator too). */
  async function admitted(request: FastifyRequest, reply: FastifyReply): Promise<OperatorRequest | undefined> {
    const operator = await operatorRequest(request, reply);
    if (await sessions!.holds(request)) return operator;
    reply.redirect(SIGN_IN, 303);
    return undefined;
  }

  const send = (reply: FastifyReply, { context }: OperatorRequest, title: string, body: Html, statusCode = 200) =>
    options.sendPage(reply, statusCode, context, { title, body, wide: true, scripts: [CONSOLE_SCRIPT_PATH] });

  function organizationForm(context: PageContext, draft: OrganizationDraft, refusal?: FormRefusal): Html {
    const problems = refusal?.fieldErrors ?? {};
    return html`<h2 id="new-title">New organization</h2>
      ${refusal ? refusalNotice(refusal.message, refusal.fieldErrors) : html``}
      <form method="post" action="${HOME}/organizations" aria-labelledby="new-title">
        ${csrfField(context)}
        ${inputControl({
          id: 'organization-name',
          name: 'name',
          label: 'Name',
          value: draft.name,
          problem: problems.name,
          attributes: html` required maxlength="255"`,
        })}
        ${inputControl({
          id: 'organization-email',
          name: 'email',
          label: 'First administrator’s email',
          type: 'email',
          value: draft.email,
          problem: problems.email,
          hint: 'They are made an organization administrator without a password, and get a link to choose theirs.',
          attributes: html` required maxlength="254"`,
        })}
        ${checkboxControl({
          id: 'organization-sandbox',
          name: 'sandbox',
          label: 'A sandbox',
          checked: draft.sandbox,
          hint: `Filled with ${SANDBOX_SAMPLE.users} sample people, demo userfields, ${SANDBOX_SAMPLE.registrations} offerings and their registrations; it can be reset to them at any time.`,
        })}
        <div class="actions"><button type="submit">Create the organization</button></div>
      </form>`;
  }

  async function renderHome(reply: FastifyReply, operator: OperatorRequest, top: Html, draft?: OrganizationDraft, refusal?: FormRefusal) {
    const { context } = operator;
    const list = await organizations.list();
    const body = html`${top} ${buttonForm(context, `${HOME}/sign-out`, 'Sign out', 'of the operator’s pages')}
    ${dataTable('Organizations', ['Name', 'Kind', 'Created', 'Addresses', 'Reset'], list, (organization: Organization) => [
      organization.name,
      organization.sandbox ? 'Sandbox' : 'Organization',
      when(organization.createdDate),
      html`<a href="/o/${organization.id}/sign-in">Sign-in<span class="visually-hidden"> of ${organization.name}</span></a> ·
        <a href="/o/${organization.id}/console">Console<span class="visually-hidden"> of ${organization.name}</span></a>`,
      organization.sandbox
        ? html`<a href="${HOME}/organizations/${organization.id}/reset">Reset…<span class="visually-hidden"> ${organization.name}</span></a>`
        : html`—`,
    ])}
    ${organizationForm(context, draft ?? { name: '', email: '', sandbox: false }, refusal)}`;
    return send(reply, operator, 'Organizations', body, refusal?.statusCode ?? 200);
  }

  /** The sandbox of the path: another organization is a 404, one that is no sandbox says so (409). */
  async function sandboxOf(request: FastifyRequest) {
    const { orgId } = request.params as { orgId: string };
    const organization = isId(orgId) ? await organizationsRepository(options.db).find(orgId) : undefined;
    if (!organization) throw pageErrors.notFound();
    return organization;
  }

  const notASandbox = (reply: FastifyReply, operator: OperatorRequest, name: string) =>
    send(
      reply,
      operator,
      'Not a sandbox',
      html`${notice('error', `${name} is not a sandbox: only a sandbox can be reset.`)}
        <p><a href="${HOME}">Back to the organizations</a></p>`,
      409,
    );

  function signInPage(reply: FastifyReply, operator: OperatorRequest, shown: { error?: string; done?: string }, statusCode = 200) {
    const body = html`<div class="card">
      ${notice('error', shown.error)}${notice('ok', shown.done)}
      <p>The server’s operator creates organizations and resets sandboxes. Sign in with the server’s <code>OPERATOR_TOKEN</code>.</p>
      <form method="post" action="${SIGN_IN}">
        ${csrfField(operator.context)}
        <div class="field">
          <label for="token">Operator token</label>
          <input type="password" id="token" name="token" autocomplete="current-password" required autofocus />
        </div>
        <div class="actions"><button type="submit">Sign in</button></div>
      </form>
    </div>`;
    return send(reply, operator, 'Sign in as the server’s operator', body, statusCode);
  }

  app.get(`${PATH}/sign-in`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const operator = await operatorRequest(request, reply);
    if (await sessions!.holds(request)) return reply.redirect(HOME, 303);
    const signedOut = (request.query as Record<string, unknown>).done === 'signed-out';
    return signInPage(reply, operator, signedOut ? { done: 'You are signed out.' } : {});
  });

  app.post(`${PATH}/sign-in`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const operator = await operatorRequest(request, reply);
    const given = typeof operator.form.token === 'string' ? operator.form.token : '';
    try {
      await options.signIn.verifyOperator(token!, given, options.addressOf(request));
    } catch (error) {
      if (error instanceof SignInThrottled) {
        const seconds = Math.ceil(error.retryAfterMs / 1000);
        reply.header('retry-after', String(seconds));
        return signInPage(reply, operator, { error: operator.context.t.signIn.throttled(Math.ceil(seconds / 60)) }, 429);
      }
      if (error instanceof SignInRefused) return signInPage(reply, operator, { error: 'The token is incorrect.' }, 401);
      throw error;
    }
    await sessions!.start(reply);
    return reply.redirect(HOME, 303);
  });

  app.post(`${PATH}/sign-out`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    await operatorRequest(request, reply);
    sessions!.end(reply);
    return reply.redirect(`${SIGN_IN}?done=signed-out`, 303);
  });

  app.get(PATH, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const operator = await admitted(request, reply);
    if (!operator) return reply;
    return renderHome(reply, operator, notice('ok', DONE[String((request.query as Record<string, unknown>).done)]));
  });

  app.post(`${PATH}/organizations`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const operator = await admitted(request, reply);
    if (!operator) return reply;
    const { form } = operator;
    const draft: OrganizationDraft = {
      name: formValue(form, 'name').trim(),
      email: formValue(form, 'email').trim(),
      sandbox: formValue(form, 'sandbox') === 'true',
    };
    const administrator = { email: draft.email, accountType: 'organizationAdministrator' as const };
    const outcome = await refusedOr(async () => {
      if (draft.name === '' || draft.name.length > 255) throw new Invalid({ name: 'Give the organization a name, of 255 characters at most.' });
      validCreation(administrator);
      // Both or neither: an organization is never left without the administrator it was made for.
      return inTransaction(options.db, OPERATOR_ACTOR, async (trx) => {
        const organization = await organizationsService(trx).create(draft.name, { sandbox: draft.sandbox });
        const userId = await usersService(trx, options.passwordPolicy).create(operatorCaller(organization.id), administrator);
        return { organization, userId };
      });
    });
    if (outcome.refusal) return renderHome(reply, operator, html``, draft, outcome.refusal);
    const { organization, userId } = outcome.value;
    if (organization.sandbox) await fillSandbox(options.db, organization.id, options.passwordPolicy);
    // The link leads on to the console once the password is chosen.
    const linkOf = (secret: string) => `${resetLinkOf(request, organization.id)(secret)}?next=${encodeURIComponent(`/o/${organization.id}/console`)}`;
    if (options.resets.mails) {
      const invitation: ResetMail = (person, link, minutes) => {
        const { t } = options.messagesOf(request, person.locale);
        return { subject: t.invitation.mailSubject(organization.name), text: t.invitation.mailBody(organization.name, link, minutes) };
      };
      options.resets.request(organization.id, draft.email, linkOf, invitation);
      return reply.redirect(`${HOME}?done=invited`, 303);
    }
    // No mail: the link is shown in the page this once, never in an address, for the operator to hand on.
    const link = linkOf(await options.resets.make(organization.id, userId));
    return renderHome(
      reply,
      operator,
      secretOnce(
        `${organization.name} is created. The link for its first administrator to choose a password:`,
        link,
        `it works once, within ${RESET_LINK_MINUTES} minutes`,
      ),
    );
  });

  app.get(`${PATH}/organizations/:orgId/reset`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const operator = await admitted(request, reply);
    if (!operator) return reply;
    const organization = await sandboxOf(request);
    if (!organization.sandbox) return notASandbox(reply, operator, organization.name);
    const body = html`<p>
        Resetting <strong>${organization.name}</strong> deletes its people (but its organization administrators), its userfields (but the predefined
        ones), offerings, their categories and registrations, then makes the sample again: ${SANDBOX_SAMPLE.users} people, the demo userfields,
        ${SANDBOX_SAMPLE.registrations} offerings and their registrations.
      </p>
      <p>Its administrators, tokens, OAuth clients, webhooks, SCIM settings and agreement texts stay as they are.</p>
      <form method="post" action="${HOME}/organizations/${organization.id}/reset">
        ${csrfField(operator.context)}
        <div class="actions"><button type="submit" class="danger">Reset the sandbox</button> <a href="${HOME}">Keep it as it is</a></div>
      </form>`;
    return send(reply, operator, `Reset ${organization.name}?`, body);
  });

  app.post(`${PATH}/organizations/:orgId/reset`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const operator = await admitted(request, reply);
    if (!operator) return reply;
    const organization = await sandboxOf(request);
    if (!organization.sandbox) return notASandbox(reply, operator, organization.name);
    await resetSandbox(options.db, organization.id, options.passwordPolicy);
    return reply.redirect(`${HOME}?done=reset`, 303);
  });
}
