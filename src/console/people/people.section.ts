import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFound, Refused, type FieldErrors } from '../../lib/domain-errors.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, notice } from '../../pages/layout.js';
import { resetLinkOf, resetMail } from '../../pages/password-reset.routes.js';
import { fieldInput, valuesOfForm } from '../../pages/userfield-inputs.js';
import { bodyValidator } from '../../plugins/validation.js';
import { agreementsService } from '../../resources/agreements/agreements.service.js';
import type { Registration } from '../../resources/registrations/registrations.schemas.js';
import { registrationsService } from '../../resources/registrations/registrations.service.js';
import type { UserfieldValues } from '../../resources/userfield-values/userfield-values.schemas.js';
import { userfieldValuesService } from '../../resources/userfield-values/userfield-values.service.js';
import type { Userfield } from '../../resources/userfields/userfields.schemas.js';
import { userfieldsService } from '../../resources/userfields/userfields.service.js';
import { CreateUser, UpdateUser, UserQuery, type User } from '../../resources/users/users.schemas.js';
import { usersService } from '../../resources/users/users.service.js';
import { dataTable, secretOnce, when } from '../console-page.js';
import { everyItem } from '../every-item.js';
import { buttonForm, formValue, formValues, refusalNotice } from '../form-controls.js';
import { refusedOr, type FormRefusal } from '../form-refusal.js';
import { datesCell, ejected, gradeCell, graded, registrationActions, statusBadge, type RegistrationsState } from '../offerings/registrations.js';
import { ORGANIZATION_ADMINISTRATORS, type ConsoleRequest, type ConsoleSection } from '../sections.js';
import { filtersOfQuery, keysetOf, nameOf, peopleTable, searchForm, userQueryOf, type PeopleFilters } from './people-list.js';
import {
  ACCOUNT_KIND_NAMES,
  bodyOfPersonDraft,
  draftOfPerson,
  draftOfPersonForm,
  passwordControls,
  personForm,
  type PersonDraft,
} from './person-form.js';

const SECTION = '/:orgId/console/people';
const REGISTRATIONS_PAGE = 50;

/** What a person's page says after a change, by the `done` of its address. */
const DONE: Record<string, string> = {
  created: 'The person is added.',
  saved: 'The profile is saved.',
  deactivated: 'The person is deactivated: they can no longer sign in or be registered; nothing of theirs is deleted.',
  reactivated: 'The person is active again.',
  password: 'The password is set.',
  mailed: 'A link to choose a new password is on its way to their email; it works once, for 30 minutes.',
  values: 'The userfield values are saved.',
  ejected: 'The registration is ejected: the person lost access, with no grade recorded.',
  graded: 'The registration is graded.',
};

/** What a person's page shows of a form refused, or of a link just made. */
interface PersonState {
  top?: Html;
  profile?: { draft: PersonDraft } & FormRefusal;
  password?: FormRefusal & { requireChange: boolean };
  values?: { sent: UserfieldValues; fieldErrors: FieldErrors; message: string };
  registrations?: RegistrationsState;
  /** A reset link made without a mailer: shown this once. */
  link?: string;
}

/** The page the person's own account is on: its administrator cannot take their own rights away here. */
const selfRefusal = (message: string): FormRefusal => ({ statusCode: 400, message, fieldErrors: {} });

/**
 * People, for organization administrators: the list, searched and filtered as GET /users is and paged by
 * a person's place in it (as fast deep in a million people as on the first page); one person's page
 * (profile, kind of account, userfield values private ones included, registrations to eject or grade,
 * agreements, last sign-in); adding a person, editing, deactivating and reactivating, and a password
 * set or a reset link sent. Every write goes through the API's services with the console's caller.
 */
export const peopleSection: ConsoleSection = {
  id: 'people',
  title: 'People',
  path: '/people',
  allowed: ORGANIZATION_ADMINISTRATORS,
  routes(app, tools) {
    const users = usersService(tools.db, tools.passwordPolicy);
    const values = userfieldValuesService(tools.db);
    const fields = userfieldsService(tools.db);
    const registrations = registrationsService(tools.db);
    const agreements = agreementsService(tools.db);
    const validCreation = bodyValidator(CreateUser, tools.passwordPolicy);
    const validUpdate = bodyValidator(UpdateUser, tools.passwordPolicy);
    const validQuery = bodyValidator(UserQuery, tools.passwordPolicy);
    const base = (person: ConsoleRequest) => `${tools.base(person)}/people`;
    const admitted = (request: FastifyRequest, reply: FastifyReply) => tools.consoleRequest(request, reply, peopleSection);

    async function renderList(reply: FastifyReply, person: ConsoleRequest, query: Record<string, unknown>) {
      const url = base(person);
      const filters: PeopleFilters = filtersOfQuery(query);
      const userQuery = userQueryOf(filters);
      const paging = keysetOf(query);
      const outcome = await refusedOr(async () => {
        validQuery(userQuery);
        if (!paging) throw new Refused('This place in the list is not one the console gave: start from the newest.');
        const page = await users.listByKey(person.caller, userQuery, paging);
        // Fewer newer people than a page: the newest page, full, instead.
        return paging.before && !page.more
          ? { page: await users.listByKey(person.caller, userQuery, { limit: paging.limit }), paging: { limit: paging.limit } }
          : { page, paging };
      });
      const body = html`${notice('ok', DONE[String(query.done)])}
        <div class="actions"><a class="button" href="${url}/new">Add a person</a></div>
        <section class="card" aria-labelledby="people-title">
          <h2 id="people-title">People, newest first</h2>
          ${outcome.refusal ? refusalNotice(outcome.refusal.message, outcome.refusal.fieldErrors) : html``}
          ${searchForm(url, filters, outcome.refusal?.fieldErrors ?? {})}
          ${outcome.refusal ? html`` : peopleTable(url, filters, outcome.value.page, outcome.value.paging)}
        </section>`;
      return tools.sendConsolePage(reply, person, peopleSection, { title: 'People', body }, outcome.refusal?.statusCode ?? 200);
    }

    async function renderNew(reply: FastifyReply, person: ConsoleRequest, refused?: { draft: PersonDraft; requireChange: boolean } & FormRefusal) {
      const url = base(person);
      const body = html`<p><a href="${url}">Back to the people</a></p>
        ${refused ? refusalNotice(refused.message, refused.fieldErrors) : html``}
        <section class="card" aria-labelledby="form-title">
          <h2 id="form-title">The person</h2>
          ${personForm(person.context, refused?.draft ?? draftOfPerson(), {
            action: url,
            submit: 'Add the person',
            fieldErrors: refused?.fieldErrors ?? {},
            withPassword: { requireChange: refused?.requireChange ?? true },
          })}
        </section>`;
      return tools.sendConsolePage(reply, person, peopleSection, { title: 'Add a person', body }, refused?.statusCode ?? 200);
    }

    /** The userfields in their order, public categories first, each with whether people see it. */
    const everyField = (person: ConsoleRequest) => everyItem((paging) => fields.list(person.caller, {}, paging));

    function valuesCard(
      person: ConsoleRequest,
      user: User,
      fieldList: readonly Userfield[],
      stored: UserfieldValues,
      state: PersonState['values'],
    ): Html {
      const groups = new Map<string, Userfield[]>();
      for (const field of fieldList) {
        const group =
          field.categoryName === undefined
            ? 'Predefined fields in no category (people do not see them)'
            : `${field.categoryName} (${field.categoryType === 'private' ? 'private: administrators only' : 'public'})`;
        groups.set(group, [...(groups.get(group) ?? []), field]);
      }
      const { t } = person.context;
      return html`<section class="card" aria-labelledby="values-title">
        <h2 id="values-title">Userfield values</h2>
        ${state ? refusalNotice(state.message, {}) : html``}
        ${
          fieldList.length === 0
            ? html`<p>The organization has no userfields.</p>`
            : html`<form method="post" action="${base(person)}/${user.id}/userfields">
                ${csrfField(person.context)}
                ${[...groups].map(
                  ([group, members]) =>
                    html`<fieldset>
                      <legend>${group}</legend>
                      ${members.map((field) =>
                        fieldInput(field, state && field.id in state.sent ? state.sent[field.id] : stored[field.id], state?.fieldErrors[field.id], t),
                      )}
                    </fieldset>`,
                )}
                <div class="actions"><button type="submit">Save the values</button></div>
              </form>`
        }
      </section>`;
    }

    async function registrationsCard(person: ConsoleRequest, user: User, offset: number, state: RegistrationsState = {}): Promise<Html> {
      const page = await registrations.list(person.caller, { userId: user.id }, { limit: REGISTRATIONS_PAGE, offset });
      const url = `${base(person)}/${user.id}`;
      const pageLink = (to: number, caption: string) => html`<a href="${url}?registrations=${to}#registrations-title">${caption}</a>`;
      const who = `${nameOf(user)} in`;
      return html`<section class="card" aria-labelledby="registrations-title">
        <h2 id="registrations-title">Registrations</h2>
        ${state.problem ? html`<div class="notice error" role="alert">${state.problem}</div>` : html``}
        ${dataTable(
          `Registrations of ${nameOf(user)}`,
          ['Offering', 'Status', 'Grade', 'Dates', 'Change'],
          page.slice(0, REGISTRATIONS_PAGE),
          (registration: Registration) => [
            html`<a href="${tools.base(person)}/offerings/${registration.offeringId}">${registration.title}</a>`,
            statusBadge(registration.status),
            gradeCell(registration),
            datesCell(registration),
            registrationActions(person.context, `${url}/registrations/${registration.id}`, registration, {
              who: `${who} ${registration.title}`,
              confirm: `Eject ${nameOf(user)} from ${registration.title}? They lose access; no grade is recorded.`,
              ...(state.grading?.id === registration.id ? { grading: state.grading } : {}),
            }),
          ],
          'Not registered for any offering.',
        )}
        <nav class="pager" aria-label="Pages of registrations">
          ${offset > 0 ? pageLink(Math.max(0, offset - REGISTRATIONS_PAGE), 'Previous page') : html``}
          ${page.length > REGISTRATIONS_PAGE ? pageLink(offset + REGISTRATIONS_PAGE, 'Next page') : html``}
        </nav>
      </section>`;
    }

    async function renderPerson(
      reply: FastifyReply,
      person: ConsoleRequest,
      user: User,
      state: PersonState,
      query: Record<string, unknown> = {},
      statusCode = 200,
    ) {
      const url = `${base(person)}/${user.id}`;
      const offset = Number(query.registrations);
      const [fieldList, stored, agreed, registrationsHtml] = await Promise.all([
        everyField(person),
        values.get(person.caller, user.id),
        everyItem((paging) => agreements.listForUser(person.caller, user.id, {}, paging)),
        registrationsCard(person, user, Number.isSafeInteger(offset) && offset > 0 ? offset : 0, state.registrations),
      ]);
      const yourself = user.id === person.session.user_id;
      const { profile, password } = state;
      const body = html`<p><a href="${base(person)}">Back to the people</a></p>
        ${state.top ?? html``}
        ${state.link ? secretOnce('A link to choose a new password, for the person alone; it works once, for 30 minutes.', state.link) : html``}
        <section class="card" aria-labelledby="summary-title">
          <h2 id="summary-title">${nameOf(user)}</h2>
          <dl class="facts">
            <dt>Email</dt>
            <dd>${user.email}</dd>
            <dt>Kind of account</dt>
            <dd>${ACCOUNT_KIND_NAMES[user.accountType ?? 'learner']}</dd>
            <dt>Status</dt>
            <dd>${user.active ? html`<span class="badge ok">active</span>` : html`<span class="badge error">deactivated</span>`}</dd>
            <dt>Last sign-in</dt>
            <dd>${user.lastLoginDate ? when(user.lastLoginDate) : 'never'}</dd>
            <dt>Created</dt>
            <dd>${when(user.createdDate)}</dd>
            <dt>Last changed</dt>
            <dd>${when(user.updatedDate)}</dd>
            <dt>Id</dt>
            <dd><code>${user.id}</code></dd>
          </dl>
          ${
            yourself
              ? html`<p class="hint">This is your own account: another organization administrator can deactivate it or change its kind.</p>`
              : user.active
                ? buttonForm(person.context, `${url}/active`, 'Deactivate', nameOf(user), {
                    fields: { active: 'false' },
                    danger: true,
                    confirm: `Deactivate ${nameOf(user)}? They can no longer sign in or be registered; nothing of theirs is deleted.`,
                  })
                : buttonForm(person.context, `${url}/active`, 'Reactivate', nameOf(user), { fields: { active: 'true' } })
          }
        </section>
        <section class="card" aria-labelledby="profile-title">
          <h2 id="profile-title">Profile</h2>
          ${profile ? refusalNotice(profile.message, profile.fieldErrors) : html``}
          ${personForm(person.context, profile?.draft ?? draftOfPerson(user), { action: url, submit: 'Save the profile', fieldErrors: profile?.fieldErrors ?? {} })}
        </section>
        <section class="card" aria-labelledby="password-title">
          <h2 id="password-title">Password</h2>
          ${password ? refusalNotice(password.message, password.fieldErrors) : html``}
          <form method="post" action="${url}/password">
            ${csrfField(person.context)}
            ${passwordControls(password?.fieldErrors ?? {}, password?.requireChange ?? true, 'New password', 'It ends every session of the person; tell it to them yourself.')}
            <div class="actions"><button type="submit">Set the password</button></div>
          </form>
          <h3>Or a link to choose one</h3>
          <p>
            ${
              tools.resets.mails
                ? 'A link is sent to their email; it works once, for 30 minutes, and replaces any earlier link.'
                : 'No mail server is set up (SMTP_URL): the link is shown here, once, for you to hand on. It works once, for 30 minutes.'
            }
          </p>
          ${buttonForm(person.context, `${url}/reset-link`, tools.resets.mails ? 'Send a reset link' : 'Make a reset link', `for ${nameOf(user)}`)}
        </section>
        ${valuesCard(person, user, fieldList, stored, state.values)} ${registrationsHtml}
        <section class="card" aria-labelledby="agreements-title">
          <h2 id="agreements-title">Agreements</h2>
          ${dataTable(
            `Agreements of ${nameOf(user)}`,
            ['Agreement', 'Title agreed to', 'Agreed'],
            agreed,
            (agreement) => [agreement.type, agreement.title, agreement.agreed ? when(agreement.agreedDate) : 'not agreed'],
            'The organization has no agreements.',
          )}
        </section>`;
      return tools.sendConsolePage(reply, person, peopleSection, { title: `Person: ${nameOf(user)}`, body }, statusCode);
    }

    /** The person of the path, in the administrator's organization (another's is a 404 page). */
    const personOf = (request: FastifyRequest, admin: ConsoleRequest) => users.get(admin.caller, (request.params as { userId: string }).userId);
    const done = (admin: ConsoleRequest, user: User, what: string, anchor = '') => `${base(admin)}/${user.id}?done=${what}${anchor}`;

    app.get(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      return renderList(reply, person, request.query as Record<string, unknown>);
    });

    app.get(`${SECTION}/new`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      return renderNew(reply, person);
    });

    app.post(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const draft = draftOfPersonForm(person.form);
      const requireChange = formValue(person.form, 'requirePasswordChange') === 'true';
      const password = formValue(person.form, 'password');
      const body = { ...bodyOfPersonDraft(draft, false), ...(password === '' ? {} : { password, requirePasswordChange: requireChange }) };
      const outcome = await refusedOr(async () => {
        validCreation(body);
        return users.create(person.caller, body as CreateUser);
      });
      if (outcome.refusal) return renderNew(reply, person, { draft, requireChange, ...outcome.refusal });
      return reply.redirect(`${base(person)}/${outcome.value}?done=created`, 303);
    });

    app.get(`${SECTION}/:userId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const user = await personOf(request, person);
      const query = request.query as Record<string, unknown>;
      return renderPerson(reply, person, user, { top: notice('ok', DONE[String(query.done)]) }, query);
    });

    app.post(`${SECTION}/:userId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const user = await personOf(request, person);
      const draft = draftOfPersonForm(person.form);
      const body = bodyOfPersonDraft(draft, true);
      const outcome =
        user.id === person.session.user_id && body.accountType !== 'organizationAdministrator'
          ? { refusal: selfRefusal('You cannot change the kind of your own account: another organization administrator can.') }
          : await refusedOr(async () => {
              validUpdate(body);
              await users.update(person.caller, user.id, body);
            });
      if (outcome.refusal) return renderPerson(reply, person, user, { profile: { draft, ...outcome.refusal } }, {}, outcome.refusal.statusCode);
      return reply.redirect(done(person, user, 'saved'), 303);
    });

    app.post(`${SECTION}/:userId/active`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const user = await personOf(request, person);
      const active = formValue(person.form, 'active');
      const outcome =
        user.id === person.session.user_id
          ? { refusal: selfRefusal('You cannot deactivate your own account: another organization administrator can.') }
          : await refusedOr(async () => {
              const body = { active: active === 'true' ? true : active === 'false' ? false : active };
              validUpdate(body);
              await users.update(person.caller, user.id, body as UpdateUser);
            });
      if (outcome.refusal)
        return renderPerson(
          reply,
          person,
          user,
          { top: refusalNotice(outcome.refusal.message, outcome.refusal.fieldErrors) },
          {},
          outcome.refusal.statusCode,
        );
      return reply.redirect(done(person, user, active === 'true' ? 'reactivated' : 'deactivated'), 303);
    });

    app.post(`${SECTION}/:userId/password`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const user = await personOf(request, person);
      const requireChange = formValue(person.form, 'requirePasswordChange') === 'true';
      const body = { password: formValue(person.form, 'password'), requirePasswordChange: requireChange };
      const outcome = await refusedOr(async () => {
        validUpdate(body);
        await users.update(person.caller, user.id, body);
      });
      if (outcome.refusal)
        return renderPerson(reply, person, user, { password: { requireChange, ...outcome.refusal } }, {}, outcome.refusal.statusCode);
      return reply.redirect(done(person, user, 'password', '#password-title'), 303);
    });

    app.post(`${SECTION}/:userId/reset-link`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const user = await personOf(request, person);
      if (!user.active) {
        const refusal = refusalNotice(`${nameOf(user)} is deactivated: reactivate them first, and a link will work.`, {});
        return renderPerson(reply, person, user, { top: refusal }, {}, 400);
      }
      const { id: orgId, name } = person.organization;
      if (tools.resets.mails) {
        tools.resets.request(orgId, user.email, resetLinkOf(request, orgId), resetMail(tools, request, name));
        return reply.redirect(done(person, user, 'mailed', '#password-title'), 303);
      }
      // Shown in the page, never in an address: the link is a secret until it is used.
      const link = resetLinkOf(request, orgId)(await tools.resets.make(orgId, user.id));
      return renderPerson(reply, person, user, { link });
    });

    app.post(`${SECTION}/:userId/userfields`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const user = await personOf(request, person);
      const fieldList = await everyField(person);
      const { values: sent, errors } = valuesOfForm(fieldList, person.form, person.context.t);
      // A field the form showed that is no longer one of the organization's (deleted meanwhile) is said, not skipped.
      const known = new Set(fieldList.map((field) => field.id));
      const gone = formValues(person.form, 'shown').filter((id) => !known.has(id));
      const outcome =
        gone.length > 0
          ? {
              refusal: {
                statusCode: 400,
                message: 'A field of the form is no longer one of the organization: open the page again.',
                fieldErrors: {},
              },
            }
          : Object.keys(errors).length > 0
            ? { refusal: { statusCode: 400, message: 'Some values cannot be saved: see beside each field.', fieldErrors: errors } }
            : await refusedOr(() => values.update(person.caller, user.id, sent));
      if (outcome.refusal) {
        const { message, fieldErrors, statusCode } = outcome.refusal;
        return renderPerson(reply, person, user, { values: { sent, fieldErrors, message } }, {}, statusCode);
      }
      return reply.redirect(done(person, user, 'values', '#values-title'), 303);
    });

    /** The registration of the path, of this person in the administrator's organization (any other is a 404 page). */
    async function registrationOf(request: FastifyRequest, admin: ConsoleRequest, user: User): Promise<Registration> {
      const registration = await registrations.get(admin.caller, (request.params as { registrationId: string }).registrationId);
      if (registration.userId !== user.id) throw new NotFound();
      return registration;
    }

    app.post(
      `${SECTION}/:userId/registrations/:registrationId/eject`,
      { config: { scope: 'none' }, schema: { hide: true } },
      async (request, reply) => {
        const person = await admitted(request, reply);
        if (!person) return reply;
        const user = await personOf(request, person);
        const refused = await ejected(registrations, person, await registrationOf(request, person, user));
        if (refused) return renderPerson(reply, person, user, { registrations: { problem: refused.problem } }, {}, refused.statusCode);
        return reply.redirect(done(person, user, 'ejected', '#registrations-title'), 303);
      },
    );

    app.post(
      `${SECTION}/:userId/registrations/:registrationId/grade`,
      { config: { scope: 'none' }, schema: { hide: true } },
      async (request, reply) => {
        const person = await admitted(request, reply);
        if (!person) return reply;
        const user = await personOf(request, person);
        const refused = await graded(registrations, person, await registrationOf(request, person, user));
        if (refused) return renderPerson(reply, person, user, { registrations: { grading: refused.grading } }, {}, refused.statusCode);
        return reply.redirect(done(person, user, 'graded', '#registrations-title'), 303);
      },
    );
  },
};
