import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PendingActions } from '../accounts/profile.service.js';
import { hasPendingActions } from '../accounts/profile.service.js';
import { Invalid, type FieldErrors } from '../lib/domain-errors.js';
import { LOCALE_PATTERN } from '../resources/users/users.schemas.js';
import { setSessionCookie } from './cookies.js';
import { html, type Html } from './html.js';
import { csrfField, notice, type PageContext } from './layout.js';
import { safeNext, type OrganizationRequest, type PageRoutesOptions } from './page-routes.js';
import { formText } from './sign-in.routes.js';
import { interactionFormTargets } from './interaction.routes.js';
import { pagePolicy } from './policy.js';
import { fieldInput, valuesOfForm } from './userfield-inputs.js';
import type { Userfield } from '../resources/userfields/userfields.schemas.js';
import type { UserfieldValues } from '../resources/userfield-values/userfield-values.schemas.js';
import type { Agreement } from '../resources/agreements/agreements.schemas.js';
import type { Messages } from './locales/messages.js';

const ORG = '/:orgId';
const LOCALE = new RegExp(LOCALE_PATTERN);

/** What a section of the account page shows after a form of it was sent. */
interface SectionState {
  saved?: boolean;
  error?: string;
  fieldErrors?: FieldErrors;
  /** What the form sent, shown again when it was refused. */
  sent?: Record<string, unknown>;
}

/** The field errors of a service's refusal, or rethrows anything else. */
function fieldErrorsOf(error: unknown): FieldErrors {
  if (error instanceof Invalid) return error.fieldErrors;
  throw error;
}

function detailsSection(context: PageContext, fields: readonly Userfield[], values: UserfieldValues, state: SectionState): Html {
  const { t, organization } = context;
  return html`<section class="card" aria-labelledby="details-title">
    <h2 id="details-title">${t.account.details}</h2>
    ${notice('ok', state.saved ? t.account.saved : undefined)}${notice('error', state.error)}
    ${
      fields.length === 0
        ? html`<p>${t.account.noDetails}</p>`
        : html`<p class="hint">${t.account.detailsHint}</p>
            <form method="post" action="/o/${organization!.id}/account/details">
              ${csrfField(context)}
              ${fields.map((field) => fieldInput(field, state.sent && field.id in state.sent ? state.sent[field.id] : values[field.id], state.fieldErrors?.[field.id], t))}
              <div class="actions"><button type="submit">${t.account.save}</button></div>
            </form>`
    }
  </section>`;
}

function passwordFields(context: PageContext, state: SectionState, current: boolean): Html {
  const { t } = context;
  const error = (name: string) => state.fieldErrors?.[name];
  const input = (name: string, label: string, autocomplete: string) =>
    html`<div class="field">
      <label for="${name}">${label}</label>
      <input
        type="password"
        id="${name}"
        name="${name}"
        autocomplete="${autocomplete}"
        required${error(name) ? html` aria-invalid="true" aria-describedby="${name}-error"` : html``}
      />
      ${error(name) ? html`<p class="field-error" id="${name}-error">${error(name)}</p>` : html``}
    </div>`;
  return html`${current ? input('current', t.account.currentPassword, 'current-password') : html``}
  ${input('password', t.account.newPassword, 'new-password')}${input('confirm', t.account.confirmPassword, 'new-password')}`;
}

/** The new password of a form, checked against its confirmation; the policy is the service's. */
function newPasswordOf(context: PageContext, form: Record<string, unknown>): { password: string; errors: FieldErrors } {
  const password = typeof form.password === 'string' ? form.password : '';
  return { password, errors: password !== form.confirm ? { confirm: context.t.account.passwordsDiffer } : {} };
}

/**
 * An agreement as a sign-in's required steps show it: its title, its text as written, and the box that
 * accepts it (`refused`: sent unticked). `preview` shows it so to an administrator, the box inert.
 */
export function agreementToAccept(agreement: Pick<Agreement, 'type' | 'title' | 'text'>, t: Messages, refused = false, preview = false): Html {
  return html`<div class="field">
    <h2>${agreement.title}</h2>
    <div class="agreement-text" tabindex="0">${agreement.text}</div>
    <label
      ><input
        type="checkbox"
        name="agree"
        value="${agreement.type}"
        ${preview ? html` disabled` : html` required`}${refused ? html` aria-invalid="true" aria-describedby="agree-${agreement.type}-error"` : html``}
      />
      ${t.required.accept(agreement.title)}</label
    >
    ${refused ? html`<p class="field-error" id="agree-${agreement.type}-error">${t.required.mustAccept}</p>` : html``}
  </div>`;
}

/** The person's own account page, and the steps a sign-in may require of them first. */
export function accountRoutes(app: FastifyInstance, options: PageRoutesOptions): void {
  const { profile } = options;

  /** The organization's request of a signed-in person; anyone else is sent to sign in first, and back here after. */
  async function personRequest(request: Parameters<PageRoutesOptions['organizationRequest']>[0], reply: FastifyReply) {
    const organizationRequest = await options.organizationRequest(request, reply);
    if (!organizationRequest.session) {
      const back = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
      reply.redirect(`/o/${organizationRequest.organization.id}/sign-in${back}`, 303);
      return undefined;
    }
    return organizationRequest as OrganizationRequest & { session: NonNullable<OrganizationRequest['session']> };
  }

  async function renderAccount(
    reply: FastifyReply,
    { organization, session, context }: OrganizationRequest & { session: NonNullable<OrganizationRequest['session']> },
    sections: { profile?: SectionState; details?: SectionState; password?: SectionState },
    statusCode = 200,
  ) {
    const { t } = context;
    const orgId = organization.id;
    const [user, fields, agreements] = await Promise.all([
      profile.user(orgId, session.user_id),
      profile.publicFields(orgId),
      profile.agreements(orgId, session.user_id),
    ]);
    const values = await profile.publicValues(orgId, session.user_id, fields);
    const profileState = sections.profile ?? {};
    const sent = profileState.sent ?? {};
    const text = (name: 'firstName' | 'lastName') => (name in sent ? String(sent[name]) : (user[name] ?? ''));
    const locale = 'locale' in sent ? String(sent.locale) : (user.locale ?? '');
    const language = locale.split('-')[0];
    const profileError = (name: string) => profileState.fieldErrors?.[name];
    const body = html` <section class="card" aria-labelledby="profile-title">
        <h2 id="profile-title">${t.account.profile}</h2>
        ${notice('ok', profileState.saved ? t.account.saved : undefined)}
        <dl class="facts">
          <dt>${t.account.email}</dt>
          <dd>
            ${user.email}
            <p class="hint">${t.account.emailHint}</p>
          </dd>
          <dt>${t.account.accountType}</dt>
          <dd>${t.account.accountTypes[user.accountType ?? 'learner']}</dd>
          ${
            user.lastLoginDate
              ? html`<dt>${t.account.lastSignIn}</dt>
                  <dd><time datetime="${user.lastLoginDate}">${user.lastLoginDate.replace('T', ' ').replace('Z', ' UTC')}</time></dd>`
              : html``
          }
        </dl>
        <form method="post" action="/o/${orgId}/account/profile">
          ${csrfField(context)}
          ${(['firstName', 'lastName'] as const).map(
            (name) =>
              html`<div class="field">
                <label for="${name}">${t.account[name]}</label>
                <input
                  type="text"
                  id="${name}"
                  name="${name}"
                  value="${text(name)}"
                  maxlength="255"
                  autocomplete="${name === 'firstName' ? 'given-name' : 'family-name'}"
                  ${profileError(name) ? html` aria-invalid="true" aria-describedby="${name}-error"` : html``}
                />
                ${profileError(name) ? html`<p class="field-error" id="${name}-error">${profileError(name)}</p>` : html``}
              </div>`,
          )}
          <div class="field">
            <label for="locale">${t.account.language}</label>
            <select id="locale" name="locale">
              <option value="">${t.account.languageDefault}</option>
              ${[...options.languages].map(
                ([code, messages]) =>
                  html`<option value="${code}" lang="${code}" ${language === code ? html` selected` : html``}>${messages.languageName}</option>`,
              )}${language && !options.languages.has(language) ? html`<option value="${locale}" selected>${locale}</option>` : html``}
            </select>
          </div>
          <div class="actions"><button type="submit">${t.account.save}</button></div>
        </form>
      </section>
      ${detailsSection(context, fields, values, sections.details ?? {})}
      <section class="card" aria-labelledby="password-title">
        <h2 id="password-title">${t.account.password}</h2>
        ${notice('ok', sections.password?.saved ? t.account.saved : undefined)}${notice('error', sections.password?.error)}
        <form method="post" action="/o/${orgId}/account/password">
          ${csrfField(context)} ${passwordFields(context, sections.password ?? {}, true)}
          <div class="actions"><button type="submit">${t.account.changePassword}</button></div>
        </form>
      </section>
      <section class="card" aria-labelledby="agreements-title">
        <h2 id="agreements-title">${t.account.agreements}</h2>
        ${
          agreements.length === 0
            ? html`<p>${t.account.noAgreements}</p>`
            : html`<ul class="plain">
                ${agreements.map(
                  (agreement) =>
                    html`<li>
                      <strong>${agreement.title}</strong> —
                      ${agreement.agreed && agreement.agreedDate ? t.account.agreedOn(agreement.agreedDate.slice(0, 10)) : t.account.notAgreed}
                    </li>`,
                )}
              </ul>`
        }
      </section>
      <section class="card" aria-labelledby="sessions-title">
        <h2 id="sessions-title">${t.account.sessions}</h2>
        <div class="actions">
          <form method="post" action="/o/${orgId}/sign-out">
            ${csrfField(context)}<button type="submit" class="secondary">${t.account.signOut}</button>
          </form>
          <form method="post" action="/o/${orgId}/sign-out-everywhere">
            ${csrfField(context)}<button type="submit" class="danger">${t.account.signOutEverywhere}</button>
          </form>
        </div>
        <p class="hint">${t.account.signOutEverywhereHint}</p>
      </section>`;
    return options.sendPage(reply, statusCode, context, { title: t.account.title, body });
  }

  /** The account page for a person through every required step; one with steps left goes there first. */
  async function throughSteps(reply: FastifyReply, person: OrganizationRequest & { session: NonNullable<OrganizationRequest['session']> }) {
    if (!hasPendingActions(await profile.pending(person.organization.id, person.session.user_id))) return true;
    reply.redirect(`/o/${person.organization.id}/continue?next=${encodeURIComponent(`/o/${person.organization.id}/account`)}`, 303);
    return false;
  }

  app.get(`${ORG}/account`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const person = await personRequest(request, reply);
    if (!person || !(await throughSteps(reply, person))) return reply;
    return renderAccount(reply, person, {});
  });

  app.post(`${ORG}/account/profile`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const person = await personRequest(request, reply);
    if (!person || !(await throughSteps(reply, person))) return reply;
    const { form, organization, session, context } = person;
    const sent = { firstName: formText(form.firstName, 300), lastName: formText(form.lastName, 300), locale: formText(form.locale, 16) };
    if (sent.locale !== '' && !LOCALE.test(sent.locale)) {
      return renderAccount(reply, person, { profile: { fieldErrors: { locale: context.t.errors.badRequest }, sent } }, 400);
    }
    try {
      await profile.updateProfile(organization.id, session.user_id, sent);
    } catch (error) {
      return renderAccount(reply, person, { profile: { fieldErrors: fieldErrorsOf(error), sent } }, 400);
    }
    // The page speaks the language just chosen.
    const { language, t } = options.messagesOf(request, sent.locale);
    return renderAccount(reply, { ...person, context: { ...context, language, t } }, { profile: { saved: true } });
  });

  app.post(`${ORG}/account/details`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const person = await personRequest(request, reply);
    if (!person || !(await throughSteps(reply, person))) return reply;
    const { form, organization, session, context } = person;
    const fields = await profile.publicFields(organization.id);
    const { values, errors } = valuesOfForm(fields, form, context.t);
    let fieldErrors = errors;
    if (Object.keys(fieldErrors).length === 0) {
      try {
        await profile.updateFields(organization.id, session.user_id, values);
        return await renderAccount(reply, person, { details: { saved: true } });
      } catch (error) {
        fieldErrors = fieldErrorsOf(error);
      }
    }
    return renderAccount(reply, person, { details: { fieldErrors, sent: values } }, 400);
  });

  app.post(`${ORG}/account/password`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const person = await personRequest(request, reply);
    if (!person || !(await throughSteps(reply, person))) return reply;
    const { form, organization, session, context } = person;
    const current = typeof form.current === 'string' ? form.current : '';
    if (!(await options.signIn.isCurrentPassword(organization.id, session.user_id, current))) {
      return renderAccount(reply, person, { password: { fieldErrors: { current: context.t.account.wrongPassword } } }, 400);
    }
    const { password, errors } = newPasswordOf(context, form);
    if (Object.keys(errors).length > 0) return renderAccount(reply, person, { password: { fieldErrors: errors } }, 400);
    try {
      await profile.setPassword(organization.id, session.user_id, password);
    } catch (error) {
      return renderAccount(reply, person, { password: { fieldErrors: fieldErrorsOf(error) } }, 400);
    }
    // The new password ended every session, this one too; this browser, which just proved it, gets a new one.
    const started = await options.sessions.start(organization.id, session.user_id, { address: request.ip, userAgent: request.headers['user-agent'] });
    setSessionCookie(reply, organization.id, started.secret, started.maxAgeSeconds);
    return renderAccount(reply, person, { password: { saved: true } });
  });

  /** The required steps, each a part of one form: a new password, the missing fields, the agreements. */
  async function renderSteps(
    request: FastifyRequest,
    reply: FastifyReply,
    { organization, context }: OrganizationRequest,
    pending: PendingActions,
    next: string | undefined,
    state: SectionState,
    statusCode = 200,
  ) {
    const { t } = context;
    const body = html`<div class="card">
      <p>${t.required.intro}</p>
      ${notice('error', state.error)}
      <form method="post" action="/o/${organization.id}/continue">
        ${csrfField(context)}${next ? html`<input type="hidden" name="next" value="${next}" />` : html``}
        ${
          pending.newPassword
            ? html`<fieldset>
                <legend>${t.required.newPassword}</legend>
                <p class="hint">${t.required.newPasswordHint}</p>
                ${passwordFields(context, state, false)}
              </fieldset>`
            : html``
        }
        ${
          pending.fields.length > 0
            ? html`<fieldset>
                <legend>${t.required.fields}</legend>
                ${pending.fields.map((field) => fieldInput(field, state.sent?.[field.id], state.fieldErrors?.[field.id], t))}
              </fieldset>`
            : html``
        }
        ${
          pending.agreements.length > 0
            ? html`<fieldset>
                <legend>${t.required.agreements}</legend>
                ${pending.agreements.map((agreement) => agreementToAccept(agreement, t, state.fieldErrors?.[`agree.${agreement.type}`] !== undefined))}
              </fieldset>`
            : html``
        }
        <div class="actions"><button type="submit">${t.required.continue}</button></div>
      </form>
    </div>`;
    // On the way to an application: the form's redirects end at its redirect URI.
    const applicationTargets = await interactionFormTargets(options, request, organization.id, next);
    if (applicationTargets.length > 0) reply.header('content-security-policy', pagePolicy(["'self'", ...applicationTargets]));
    return options.sendPage(reply, statusCode, context, { title: t.required.title, body });
  }

  app.get(`${ORG}/continue`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const person = await personRequest(request, reply);
    if (!person) return reply;
    const next = safeNext((request.query as Record<string, unknown>).next, person.organization.id);
    const pending = await profile.pending(person.organization.id, person.session.user_id);
    if (!hasPendingActions(pending)) return reply.redirect(next ?? `/o/${person.organization.id}/account`, 303);
    return renderSteps(request, reply, person, pending, next, {});
  });

  app.post(`${ORG}/continue`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
    const person = await personRequest(request, reply);
    if (!person) return reply;
    const { form, organization, session, context } = person;
    const orgId = organization.id;
    const next = safeNext(form.next, orgId);
    const pending = await profile.pending(orgId, session.user_id);
    const { values, errors } = valuesOfForm(pending.fields, form, context.t);
    const fieldErrors: FieldErrors = { ...errors };
    const agreed = new Set([form.agree ?? []].flat());
    for (const agreement of pending.agreements)
      if (!agreed.has(agreement.type)) fieldErrors[`agree.${agreement.type}`] = context.t.required.mustAccept;
    let password: string | undefined;
    if (pending.newPassword) {
      const chosen = newPasswordOf(context, form);
      Object.assign(fieldErrors, chosen.errors);
      password = chosen.password;
      try {
        profile.checkPassword(password);
      } catch (error) {
        Object.assign(fieldErrors, fieldErrorsOf(error));
      }
    }
    if (Object.keys(fieldErrors).length === 0 && Object.keys(values).length > 0) {
      try {
        await profile.updateFields(orgId, session.user_id, values);
      } catch (error) {
        Object.assign(fieldErrors, fieldErrorsOf(error));
      }
    }
    if (Object.keys(fieldErrors).length > 0) return renderSteps(request, reply, person, pending, next, { fieldErrors, sent: values }, 400);
    await profile.agree(
      orgId,
      session.user_id,
      pending.agreements.map((agreement) => agreement.type),
    );
    if (password !== undefined) {
      await profile.setPassword(orgId, session.user_id, password);
      const started = await options.sessions.start(orgId, session.user_id, { address: request.ip, userAgent: request.headers['user-agent'] });
      setSessionCookie(reply, orgId, started.secret, started.maxAgeSeconds);
    }
    return reply.redirect(next ?? `/o/${orgId}/account`, 303);
  });
}
