import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../../lib/domain-errors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../lib/password-policy.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, type PageContext } from '../../pages/layout.js';
import { bodyValidator } from '../../plugins/validation.js';
import type { Offering } from '../../resources/offerings/offerings.schemas.js';
import { UpdateRegistration, type Registration, type Status } from '../../resources/registrations/registrations.schemas.js';
import { registrationsService, type RegistrationsService } from '../../resources/registrations/registrations.service.js';
import { usersService } from '../../resources/users/users.service.js';
import { dataTable, when } from '../console-page.js';
import { describedBy, formValue, hintAndProblem, typedNumber } from '../form-controls.js';
import { refusedOr } from '../form-refusal.js';
import type { ConsoleRequest, ConsoleTools } from '../sections.js';

const PAGE = 50;
const STATUSES: readonly Status[] = ['active', 'passed', 'failed', 'ejected'];

const validChange = bodyValidator(UpdateRegistration, DEFAULT_PASSWORD_POLICY);

/** What the registrations card shows of a form refused: what was typed, and why. */
export interface RegistrationsState {
  registering?: { email: string; problem: string };
  grading?: { id: string; grade: string; comment: string; problem: string };
  /** A refusal of the whole card (an ejection), said above the list. */
  problem?: string;
}

/** Which page of the offering's registrations to show, from the page's address. */
export interface RegistrationsView {
  status?: Status;
  offset: number;
}

export function viewOf(query: Record<string, unknown>): RegistrationsView {
  const status = STATUSES.find((known) => known === query.status);
  const offset = Number(query.offset);
  return { ...(status ? { status } : {}), offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0 };
}

/** A registration's status, as a badge. */
export const statusBadge = (status: Status) =>
  html`<span class="badge ${status === 'passed' ? 'ok' : status === 'failed' || status === 'ejected' ? 'error' : 'muted'}">${status}</span>`;

/** A registration's grade, with the grader's comment under it. */
export const gradeCell = (registration: Registration): Html =>
  html`${registration.grade === undefined ? '' : String(registration.grade)}${
    registration.graderComment ? html`<p class="hint">${registration.graderComment}</p>` : html``
  }`;

/** When a registration began, and ended. */
export const datesCell = (registration: Registration): Html =>
  html`<span class="dates"
    >from ${when(registration.beginDate)}${registration.endDate ? html`<br />to ${when(registration.endDate)}` : html``}</span
  >`;

/**
 * What can be done to a registration, whose forms post under `action` (`.../eject`, `.../grade`):
 * eject it while active (asking first with `confirm`), and grade it with a comment; `who` tells a screen
 * reader whose registration each control is for, and `grading` is a grade refused, shown again.
 */
export function registrationActions(
  context: PageContext,
  action: string,
  registration: Registration,
  { who, confirm, grading }: { who: string; confirm: string; grading?: RegistrationsState['grading'] },
): Html {
  const gradeId = `grade-${registration.id}`;
  const commentId = `comment-${registration.id}`;
  return html`<div class="actions">
    ${
      registration.status === 'active'
        ? html`<form method="post" action="${action}/eject" data-confirm="${confirm}">
            ${csrfField(context)}<button type="submit" class="danger">Eject<span class="visually-hidden"> ${who}</span></button>
          </form>`
        : html``
    }
    <details ${grading ? html` open` : html``}>
      <summary>Grade<span class="visually-hidden"> ${who}</span></summary>
      <form method="post" action="${action}/grade" class="compact">
        ${csrfField(context)}
        <div class="field">
          <label for="${gradeId}">Grade (0 to 100)<span class="visually-hidden"> of ${who}</span></label>
          <input
            type="number"
            id="${gradeId}"
            name="grade"
            min="0"
            max="100"
            step="any"
            required
            value="${grading?.grade ?? (registration.grade === undefined ? '' : String(registration.grade))}"
            ${describedBy(gradeId, grading?.problem)}
          />
          ${hintAndProblem(gradeId, grading?.problem)}
        </div>
        <div class="field">
          <label for="${commentId}">Comment<span class="visually-hidden"> on ${who}</span></label>
          <input
            type="text"
            id="${commentId}"
            name="graderComment"
            maxlength="10000"
            value="${grading?.comment ?? registration.graderComment ?? ''}"
          />
        </div>
        <button type="submit" class="secondary">Save the grade<span class="visually-hidden"> of ${who}</span></button>
      </form>
    </details>
  </div>`;
}

/** Ejects the registration through the service: undefined once done, else the refusal in words and its status. */
export async function ejected(
  registrations: RegistrationsService,
  person: ConsoleRequest,
  registration: Registration,
): Promise<{ problem: string; statusCode: number } | undefined> {
  const outcome = await refusedOr(() => registrations.update(person.caller, registration.id, { status: 'ejected' }));
  if (!outcome.refusal) return undefined;
  const problem = Object.values(outcome.refusal.fieldErrors)[0] ?? outcome.refusal.message;
  return { problem: `The registration was not ejected: ${problem}`, statusCode: outcome.refusal.statusCode };
}

/** Grades the registration with the form's grade and comment, through the service: undefined once done, else what was typed and why it was refused. */
export async function graded(
  registrations: RegistrationsService,
  person: ConsoleRequest,
  registration: Registration,
): Promise<{ grading: NonNullable<RegistrationsState['grading']>; statusCode: number } | undefined> {
  const grade = formValue(person.form, 'grade');
  const comment = formValue(person.form, 'graderComment');
  const body = { grade: typedNumber(grade), graderComment: comment.trim() === '' ? null : comment };
  const outcome = await refusedOr(async () => {
    validChange(body);
    await registrations.update(person.caller, registration.id, body as UpdateRegistration);
  });
  if (!outcome.refusal) return undefined;
  const problem = Object.values(outcome.refusal.fieldErrors)[0] ?? outcome.refusal.message;
  return { grading: { id: registration.id, grade, comment, problem }, statusCode: outcome.refusal.statusCode };
}

/**
 * An offering's registrations: its people (by name and email) with their status and grade, a page at
 * a time, and what can be done to each (eject an active one, grade any), and registering a person by email.
 */
export function registrationsPart(tools: ConsoleTools) {
  const registrations = registrationsService(tools.db);
  const users = usersService(tools.db, tools.passwordPolicy);

  async function card(person: ConsoleRequest, offering: Offering, view: RegistrationsView, state: RegistrationsState): Promise<Html> {
    const { caller, context } = person;
    const page = await registrations.list(
      caller,
      { offeringId: offering.id, ...(view.status ? { status: view.status } : {}) },
      { limit: PAGE, offset: view.offset },
    );
    const shown = page.slice(0, PAGE);
    const named = new Map(
      await Promise.all(
        [...new Set(shown.map((registration) => registration.userId))].map(async (id) => {
          const user = await users.get(caller, id);
          return [id, { name: [user.firstName, user.lastName].filter(Boolean).join(' '), email: user.email }] as const;
        }),
      ),
    );
    const url = `${tools.base(person)}/offerings/${offering.id}`;
    const who = (registration: Registration) => {
      const user = named.get(registration.userId)!;
      return user.name ? `${user.name} (${user.email})` : user.email;
    };
    const pageLink = (offset: number, caption: string) =>
      html`<a
        href="${url}?${new URLSearchParams({ ...(view.status ? { status: view.status } : {}), offset: String(offset) }).toString()}#registrations-title"
        >${caption}</a
      >`;
    const registering = state.registering;
    return html`<section class="card" aria-labelledby="registrations-title">
      <h2 id="registrations-title">Registrations</h2>
      ${state.problem ? html`<div class="notice error" role="alert">${state.problem}</div>` : html``}
      <form method="get" action="${url}" class="inline-fields">
        <div class="field">
          <label for="registrations-status">Status</label>
          <select id="registrations-status" name="status">
            <option value="">Any</option>
            ${STATUSES.map((status) => html`<option value="${status}" ${view.status === status ? html` selected` : html``}>${status}</option>`)}
          </select>
        </div>
        <div class="field"><button type="submit" class="secondary">Show</button></div>
      </form>
      ${dataTable(
        `Registrations of ${offering.title}`,
        ['Person', 'Status', 'Grade', 'Dates', 'Change'],
        shown,
        (registration) => {
          const grading = state.grading?.id === registration.id ? state.grading : undefined;
          return [
            who(registration),
            statusBadge(registration.status),
            gradeCell(registration),
            datesCell(registration),
            registrationActions(context, `${url}/registrations/${registration.id}`, registration, {
              who: who(registration),
              confirm: `Eject ${who(registration)} from ${offering.title}? They lose access; no grade is recorded.`,
              grading,
            }),
          ];
        },
        view.status ? `No ${view.status} registrations.` : 'No one is registered yet.',
      )}
      <nav class="pager" aria-label="Pages of registrations">
        ${view.offset > 0 ? pageLink(Math.max(0, view.offset - PAGE), 'Previous page') : html``}
        ${page.length > PAGE ? pageLink(view.offset + PAGE, 'Next page') : html``}
      </nav>
      <h3>Register a person</h3>
      <form method="post" action="${url}/registrations" class="inline-fields">
        ${csrfField(context)}
        <div class="field">
          <label for="register-email">Email of a person of the organization</label>
          <input
            type="email"
            id="register-email"
            name="email"
            required
            value="${registering?.email ?? ''}"
            ${describedBy('register-email', registering?.problem)}
          />
          ${hintAndProblem('register-email', registering?.problem)}
        </div>
        <div class="field"><button type="submit">Register</button></div>
      </form>
    </section>`;
  }

  /** The routes of the registrations of an offering; `render` answers the offering's page with the card's state. */
  function routes(
    app: FastifyInstance,
    admitted: (request: FastifyRequest, reply: FastifyReply) => Promise<ConsoleRequest | undefined>,
    offeringOf: (request: FastifyRequest, person: ConsoleRequest) => Promise<Offering>,
    render: (reply: FastifyReply, person: ConsoleRequest, offering: Offering, state: RegistrationsState, statusCode: number) => Promise<FastifyReply>,
  ): void {
    const section = '/:orgId/console/offerings/:offeringId/registrations';
    const done = (person: ConsoleRequest, offering: Offering, what: string) =>
      `${tools.base(person)}/offerings/${offering.id}?done=${what}#registrations-title`;

    app.post(section, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const offering = await offeringOf(request, person);
      const email = formValue(person.form, 'email').trim();
      const refuse = (problem: string, statusCode = 400) => render(reply, person, offering, { registering: { email, problem } }, statusCode);
      const [user] = email === '' ? [] : await users.list(person.caller, { email }, { limit: 1, offset: 0 });
      if (!user) return refuse('No person of the organization has this email.');
      const outcome = await refusedOr(() => registrations.create(person.caller, { userId: user.id, offeringId: offering.id }));
      if (outcome.refusal) return refuse(Object.values(outcome.refusal.fieldErrors)[0] ?? outcome.refusal.message, outcome.refusal.statusCode);
      return reply.redirect(done(person, offering, 'registered'), 303);
    });

    /** The registration of the path, of this offering in the person's organization (any other is a 404 page). */
    async function registrationOf(request: FastifyRequest, person: ConsoleRequest, offering: Offering): Promise<Registration> {
      const registration = await registrations.get(person.caller, (request.params as { registrationId: string }).registrationId);
      if (registration.offeringId !== offering.id) throw new NotFound();
      return registration;
    }

    app.post(`${section}/:registrationId/eject`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const offering = await offeringOf(request, person);
      const registration = await registrationOf(request, person, offering);
      const refused = await ejected(registrations, person, registration);
      if (refused) return render(reply, person, offering, { problem: refused.problem }, refused.statusCode);
      return reply.redirect(done(person, offering, 'ejected'), 303);
    });

    app.post(`${section}/:registrationId/grade`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const offering = await offeringOf(request, person);
      const registration = await registrationOf(request, person, offering);
      const refused = await graded(registrations, person, registration);
      if (refused) return render(reply, person, offering, { grading: refused.grading }, refused.statusCode);
      return reply.redirect(done(person, offering, 'graded'), 303);
    });
  }

  return { card, routes };
}
