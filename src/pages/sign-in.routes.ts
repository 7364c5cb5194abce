import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasPendingActions } from '../accounts/profile.service.js';
import { SignInRefused, SignInThrottled } from '../accounts/sign-in.service.js';
import { clearSessionCookie, cookieNames, setDeviceCookie, setSessionCookie } from './cookies.js';
import { html } from './html.js';
import { csrfField, notice, type PageContext } from './layout.js';
import { safeNext, type OrganizationRequest, type PageRoutesOptions } from './page-routes.js';

const ORG = '/:orgId';

/** What a sign-in page shows besides its form: why the last attempt failed, or what just happened. */
interface SignInNotice {
  error?: string;
  done?: string;
}

/** The sign-in form; `action` is where it posts (an application's sign-in posts elsewhere). */
export function signInForm(context: PageContext, action: string, next: string | undefined, email: string, shown: SignInNotice = {}) {
  const { t, organization } = context;
  return html`<div class="card">
    ${notice('error', shown.error)}${notice('ok', shown.done)}
    <form method="post" action="${action}">
      ${csrfField(context)}${next ? html`<input type="hidden" name="next" value="${next}" />` : html``}
      <div class="field">
        <label for="email">${t.signIn.email}</label>
        <input type="email" id="email" name="email" value="${email}" autocomplete="username" required autofocus />
      </div>
      <div class="field">
        <label for="password">${t.signIn.password}</label>
        <input type="password" id="password" name="password" autocomplete="current-password" required />
      </div>
      <div class="actions">
        <button type="submit">${t.signIn.submit}</button> <a href="/o/${organization!.id}/forgot-password">${t.signIn.forgotPassword}</a>
      </div>
    </form>
  </div>`;
}

/** A text of a form field, trimmed and at most `max` characters; anything else is empty. */
export function formText(value: unknown, max = 1024): string {
  return typeof value === 'string' ? value.trim().slice(0, max) : '';
}

/**
 * Checks the credentials of a sign-in form and, when they sign a person in, starts their session (a
 * new one: the browser's earlier session ends, so no secret planted before counts), notes the sign-in
 * (lastLoginDate) and the browser as one the person uses. Answers the refusal itself (401, or 429 with
 * Retry-After), as a page, and returns undefined then.
 */
export async function signPersonIn(
  options: PageRoutesOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  { organization, context, form }: OrganizationRequest,
  action: string,
): Promise<string | undefined> {
  const { t } = context;
  const email = formText(form.email, 254);
  const next = safeNext(form.next, organization.id);
  const refuse = (statusCode: number, error: string) =>
    options.sendPage(reply, statusCode, context, {
      title: t.signIn.title(organization.name),
      body: signInForm(context, action, next, email, { error }),
    });
  try {
    const userId = await options.signIn.verify(organization.id, {
      email,
      password: typeof form.password === 'string' ? form.password : '',
      address: options.addressOf(request),
      deviceProof: request.cookies[cookieNames.device(organization.id)],
    });
    const started = await options.sessions.start(
      organization.id,
      userId,
      { address: request.ip, userAgent: request.headers['user-agent'] },
      request.cookies[cookieNames.session(organization.id)],
    );
    setSessionCookie(reply, organization.id, started.secret, started.maxAgeSeconds);
    setDeviceCookie(reply, organization.id, await options.signIn.deviceProof(organization.id, email));
    await options.signIn.recordSignIn(organization.id, userId);
    return userId;
  } catch (error) {
    if (error instanceof SignInThrottled) {
      const seconds = Math.ceil(error.retryAfterMs / 1000);
      reply.header('retry-after', String(seconds));
      refuse(429, t.signIn.throttled(Math.ceil(seconds / 60)));
      return undefined;
    }
    if (error instanceof SignInRefused) {
      refuse(401, t.signIn.refused);
      return undefined;
    }
    throw error;
  }
}

/** Where a person goes once signed in: the required steps first, else where they were going, else their account. */
export async function afterSignIn(options: PageRoutesOptions, orgId: string, userId: string, next: string | undefined): Promise<string> {
  const destination = next ?? `/o/${orgId}/account`;
  if (hasPendingActions(await options.profile.pending(orgId, userId))) return `/o/${orgId}/continue?next=${encodeURIComponent(destination)}`;
  return destination;
}

/** Sign-in and sign-out at an organization's address. */
export function signInRoutes(app: FastifyInstance, options: PageRoutesOptions): void {
  app.get(ORG, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const { organization, session } = await options.organizationRequest(request, reply);
    return reply.redirect(`/o/${organization.id}/${session ? 'account' : 'sign-in'}`, 303);
  });

  app.get(`${ORG}/sign-in`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const organizationRequest = await options.organizationRequest(request, reply);
    const { organization, session, context } = organizationRequest;
    const query = request.query as Record<string, unknown>;
    const next = safeNext(query.next, organization.id);
    if (session) return reply.redirect(next ?? `/o/${organization.id}/account`, 303);
    const { t } = context;
    const done = query.done === 'signed-out' ? t.signIn.signedOut : query.done === 'password' ? t.signIn.passwordChanged : undefined;
    return options.sendPage(reply, 200, context, {
      title: t.signIn.title(organization.name),
      body: signInForm(context, `/o/${organization.id}/sign-in`, next, '', { ...(done ? { done } : {}) }),
    });
  });

  app.post(`${ORG}/sign-in`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const organizationRequest = await options.organizationRequest(request, reply);
    const { organization } = organizationRequest;
    const userId = await signPersonIn(options, request, reply, organizationRequest, `/o/${organization.id}/sign-in`);
    if (userId === undefined) return reply;
    return reply.redirect(await afterSignIn(options, organization.id, userId, safeNext(organizationRequest.form.next, organization.id)), 303);
  });

  app.post(`${ORG}/sign-out`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const { organization } = await options.organizationRequest(request, reply);
    await options.sessions.end(organization.id, request.cookies[cookieNames.session(organization.id)]);
    clearSessionCookie(reply, organization.id);
    return reply.redirect(`/o/${organization.id}/sign-in?done=signed-out`, 303);
  });

  app.post(`${ORG}/sign-out-everywhere`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const { organization, session } = await options.organizationRequest(request, reply);
    if (session) await options.sessions.endEverywhere(organization.id, session.user_id);
    clearSessionCookie(reply, organization.id);
    return reply.redirect(`/o/${organization.id}/sign-in?done=signed-out`, 303);
  });
}
