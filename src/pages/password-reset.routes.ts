import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ResetMail } from '../accounts/password-resets.service.js';
import { Invalid } from '../lib/domain-errors.js';
import { requestOrigin } from '../http/urls.js';
import { html } from './html.js';
import { csrfField, notice } from './layout.js';
import { safeNext, type PageRoutesOptions } from './page-routes.js';
import { formText } from './sign-in.routes.js';

const ORG = '/:orgId';

/** The address of a reset link's page, on the origin the request came to. */
export const resetLinkOf = (request: FastifyRequest, orgId: string) => (secret: string) =>
  `${requestOrigin(request)}/o/${orgId}/reset-password/${secret}`;

/** The mail of a reset link, in the language of the person it goes to. */
export function resetMail(options: PageRoutesOptions, request: FastifyRequest, organizationName: string): ResetMail {
  return (person, link, minutes) => {
    const words = options.messagesOf(request, person.locale).t;
    return { subject: words.reset.mailSubject(organizationName), text: words.reset.mailBody(organizationName, link, minutes) };
  };
}

/**
 * A forgotten password: the form that asks for a link by mail, and the link's form that sets a new
 * password. The link's secret is in its address (a mail can carry nothing else); the page it opens
 * sends no Referer (the pages' `no-referrer`), and the link works once.
 */
export function resetRoutes(app: FastifyInstance, options: PageRoutesOptions): void {
  app.get(`${ORG}/forgot-password`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const { organization, context } = await options.organizationRequest(request, reply);
    const { t } = context;
    const body = html`<div class="card">
      <p>${t.reset.forgotIntro}</p>
      <form method="post" action="/o/${organization.id}/forgot-password">
        ${csrfField(context)}
        <div class="field">
          <label for="email">${t.signIn.email}</label><input type="email" id="email" name="email" autocomplete="username" required autofocus />
        </div>
        <div class="actions"><button type="submit">${t.reset.send}</button></div>
      </form>
    </div>`;
    return options.sendPage(reply, 200, context, { title: t.reset.forgotTitle, body });
  });

  app.post(`${ORG}/forgot-password`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const { organization, context, form } = await options.organizationRequest(request, reply);
    const { t } = context;
    const email = formText(form.email, 254);
    if (email !== '') {
      options.resets.request(organization.id, email, resetLinkOf(request, organization.id), resetMail(options, request, organization.name));
    }
    const body = html`<div class="card">
      ${notice('ok', t.reset.sent)}
      <p><a href="/o/${organization.id}/sign-in">${t.signIn.submit}</a></p>
    </div>`;
    return options.sendPage(reply, 200, context, { title: t.reset.forgotTitle, body });
  });

  const resetForm = (context: Parameters<PageRoutesOptions['sendPage']>[2], orgId: string, secret: string, next?: string, error?: string) => {
    const { t } = context;
    return html`<div class="card">
      ${notice('error', error)}
      <form method="post" action="/o/${orgId}/reset-password/${secret}">
        ${csrfField(context)}${next ? html`<input type="hidden" name="next" value="${next}" />` : html``}
        <div class="field">
          <label for="password">${t.account.newPassword}</label
          ><input type="password" id="password" name="password" autocomplete="new-password" required autofocus />
        </div>
        <div class="field">
          <label for="confirm">${t.account.confirmPassword}</label
          ><input type="password" id="confirm" name="confirm" autocomplete="new-password" required />
        </div>
        <div class="actions"><button type="submit">${t.reset.set}</button></div>
      </form>
    </div>`;
  };

  app.get(`${ORG}/reset-password/:secret`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const { organization, context } = await options.organizationRequest(request, reply);
    const { secret } = request.params as { secret: string };
    const { t } = context;
    if ((await options.resets.holder(organization.id, secret)) === undefined) {
      return options.sendPage(reply, 410, context, {
        title: t.reset.title,
        body: html`<div class="card">
          ${notice('error', t.reset.invalid)}
          <p><a href="/o/${organization.id}/forgot-password">${t.signIn.forgotPassword}</a></p>
        </div>`,
      });
    }
    const next = safeNext((request.query as Record<string, unknown>).next, organization.id);
    return options.sendPage(reply, 200, context, { title: t.reset.title, body: resetForm(context, organization.id, secret, next) });
  });

  app.post(`${ORG}/reset-password/:secret`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const { organization, context, form } = await options.organizationRequest(request, reply);
    const { secret } = request.params as { secret: string };
    const { t } = context;
    const password = typeof form.password === 'string' ? form.password : '';
    const next = safeNext(form.next, organization.id);
    if (password !== form.confirm)
      return options.sendPage(reply, 400, context, {
        title: t.reset.title,
        body: resetForm(context, organization.id, secret, next, t.account.passwordsDiffer),
      });
    try {
      if (!(await options.resets.complete(organization.id, secret, password))) {
        return options.sendPage(reply, 410, context, {
          title: t.reset.title,
          body: html`<div class="card">${notice('error', t.reset.invalid)}</div>`,
        });
      }
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      return options.sendPage(reply, 400, context, {
        title: t.reset.title,
        body: resetForm(context, organization.id, secret, next, error.fieldErrors.password),
      });
    }
    // An invitation's link leads on to the console: the sign-in that follows goes there.
    return reply.redirect(`/o/${organization.id}/sign-in?done=password${next ? `&next=${encodeURIComponent(next)}` : ''}`, 303);
  });
}
