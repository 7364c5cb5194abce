import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FieldErrors } from '../../lib/domain-errors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../lib/password-policy.js';
import { html, type Html } from '../../pages/html.js';
import { notice } from '../../pages/layout.js';
import { bodyValidator } from '../../plugins/validation.js';
import { offeringCategoriesService } from '../../resources/offering-categories/offering-categories.service.js';
import { CreateOffering, UpdateOffering, type Offering } from '../../resources/offerings/offerings.schemas.js';
import { offeringsService } from '../../resources/offerings/offerings.service.js';
import { dataTable, when } from '../console-page.js';
import { everyItem } from '../every-item.js';
import { buttonForm, refusalNotice } from '../form-controls.js';
import { refusedOr } from '../form-refusal.js';
import { EVERY_ADMINISTRATOR, type ConsoleRequest, type ConsoleSection } from '../sections.js';
import { offeringCategoriesPart } from './offering-categories.js';
import { bodyOfOfferingDraft, draftOfOffering, draftOfOfferingForm, offeringForm, type OfferingDraft } from './offering-form.js';
import { registrationsPart, viewOf, type RegistrationsState } from './registrations.js';

const SECTION = '/:orgId/console/offerings';
const PAGE = 50;

const validCreation = bodyValidator(CreateOffering, DEFAULT_PASSWORD_POLICY);
const validUpdate = bodyValidator(UpdateOffering, DEFAULT_PASSWORD_POLICY);

/** What a page says after a change, by the `done` of its address. */
const DONE: Record<string, string> = {
  created: 'The offering is made.',
  saved: 'The offering is saved.',
  deleted: 'The offering is deleted.',
  registered: 'The person is registered.',
  ejected: 'The registration is ejected: the person lost access, with no grade recorded.',
  graded: 'The registration is graded.',
};

/** Whether people can register now, in words. */
function registrationWindow(offering: Offering, at: string): Html {
  const { registrationBeginDate: opens, registrationEndDate: closes } = offering;
  if (opens && at < opens) return html`opens ${when(opens)}`;
  if (closes && at > closes) return html`closed ${when(closes)}`;
  return closes ? html`open until ${when(closes)}` : html`open`;
}

/** The refused form of an offering: what was typed, and why. */
interface OfferingRefusal {
  draft: OfferingDraft;
  message: string;
  fieldErrors: FieldErrors;
}

/**
 * Offerings, their categories and registrations, for organization and course administrators: the
 * catalog (made, changed, deleted), an offering's registrations (register a person by email, eject,
 * grade with a comment), and the offering categories, all through the same services as the API.
 */
export const offeringsSection: ConsoleSection = {
  id: 'offerings',
  title: 'Offerings',
  path: '/offerings',
  allowed: EVERY_ADMINISTRATOR,
  routes(app, tools) {
    const offerings = offeringsService(tools.db);
    const categories = offeringCategoriesService(tools.db);
    const registrations = registrationsPart(tools);
    const base = (person: ConsoleRequest) => `${tools.base(person)}/offerings`;
    const admitted = (request: FastifyRequest, reply: FastifyReply) => tools.consoleRequest(request, reply, offeringsSection);
    const everyCategory = (person: ConsoleRequest) => everyItem((paging) => categories.list(person.caller, {}, paging));

    async function renderList(reply: FastifyReply, person: ConsoleRequest, query: Record<string, unknown>, top: Html, statusCode = 200) {
      const title = typeof query.title === 'string' ? query.title.trim().slice(0, 255) : '';
      const offset = Number.isSafeInteger(Number(query.offset)) && Number(query.offset) > 0 ? Number(query.offset) : 0;
      const [page, categoryList] = await Promise.all([
        offerings.list(person.caller, title ? { title } : {}, { limit: PAGE, offset }),
        everyCategory(person),
      ]);
      const names = new Map(categoryList.map((category) => [category.id, category.name]));
      const url = base(person);
      const at = new Date().toISOString();
      const pageLink = (to: number, caption: string) =>
        html`<a href="${url}?${new URLSearchParams({ ...(title ? { title } : {}), offset: String(to) }).toString()}">${caption}</a>`;
      const body = html`${top}
        <div class="actions">
          <a class="button" href="${url}/new">New offering</a>
          <a class="button secondary" href="${url}/categories">Offering categories</a>
        </div>
        <section class="card" aria-labelledby="offerings-title">
          <h2 id="offerings-title">Catalog</h2>
          <form method="get" action="${url}" class="inline-fields" role="search">
            <div class="field">
              <label for="offerings-title-filter">Title contains</label>
              <input type="text" id="offerings-title-filter" name="title" value="${title}" maxlength="255" />
            </div>
            <div class="field"><button type="submit" class="secondary">Search</button></div>
          </form>
          ${dataTable(
            'Offerings',
            ['Title', 'Runs', 'Registration', 'Categories', 'Tags', 'Passing grade', 'Retake'],
            page.slice(0, PAGE),
            (offering) => [
              html`<a href="${url}/${offering.id}" id="offering-${offering.id}">${offering.title}</a>`,
              offering.beginDate || offering.endDate ? html`${when(offering.beginDate)} to ${when(offering.endDate)}` : '',
              registrationWindow(offering, at),
              (offering.offeringCategoryIds ?? []).map((id) => names.get(id) ?? id).join(', '),
              (offering.tags ?? []).join(', '),
              String(offering.passingGrade),
              offering.allowRetake ? 'allowed' : '',
            ],
            title ? 'No offering has such a title.' : 'No offerings yet.',
          )}
          <nav class="pager" aria-label="Pages of offerings">
            ${offset > 0 ? pageLink(Math.max(0, offset - PAGE), 'Previous page') : html``}
            ${page.length > PAGE ? pageLink(offset + PAGE, 'Next page') : html``}
          </nav>
        </section>`;
      return tools.sendConsolePage(reply, person, offeringsSection, { title: 'Offerings', body }, statusCode);
    }

    async function renderNew(reply: FastifyReply, person: ConsoleRequest, refused?: OfferingRefusal, statusCode = 200) {
      const url = base(person);
      const body = html`<p><a href="${url}">Back to the offerings</a></p>
        ${refused ? refusalNotice(refused.message, refused.fieldErrors) : html``}
        <section class="card" aria-labelledby="form-title">
          <h2 id="form-title">The offering</h2>
          ${offeringForm(person.context, refused?.draft ?? draftOfOffering(), {
            action: url,
            categories: await everyCategory(person),
            fieldErrors: refused?.fieldErrors ?? {},
            submit: 'Create the offering',
            editing: false,
          })}
        </section>`;
      return tools.sendConsolePage(reply, person, offeringsSection, { title: 'New offering', body }, statusCode);
    }

    async function renderOffering(
      reply: FastifyReply,
      person: ConsoleRequest,
      offering: Offering,
      shown: { top?: Html; refused?: OfferingRefusal; registrations?: RegistrationsState; query?: Record<string, unknown> },
      statusCode = 200,
    ) {
      const url = base(person);
      const refused = shown.refused;
      const body = html`<p><a href="${url}">Back to the offerings</a></p>
        ${shown.top ?? html``} ${await registrations.card(person, offering, viewOf(shown.query ?? {}), shown.registrations ?? {})}
        <section class="card" aria-labelledby="form-title">
          <h2 id="form-title">Change the offering</h2>
          ${refused ? refusalNotice(refused.message, refused.fieldErrors) : html``}
          ${offeringForm(person.context, refused?.draft ?? draftOfOffering(offering), {
            action: `${url}/${offering.id}`,
            categories: await everyCategory(person),
            fieldErrors: refused?.fieldErrors ?? {},
            submit: 'Save the offering',
            editing: true,
          })}
        </section>
        <section class="card" aria-labelledby="delete-title">
          <h2 id="delete-title">Delete the offering</h2>
          <p>Only an offering without registrations (but ejected ones) can be deleted; ejected registrations go with it.</p>
          ${buttonForm(person.context, `${url}/${offering.id}/delete`, 'Delete the offering', '', {
            danger: true,
            confirm: `Delete ${offering.title}?`,
          })}
        </section>`;
      return tools.sendConsolePage(reply, person, offeringsSection, { title: `Offering: ${offering.title}`, body }, statusCode);
    }

    /** The offering of the path, in the person's organization (another's is a 404 page). */
    const offeringOf = (request: FastifyRequest, person: ConsoleRequest) =>
      offerings.get(person.caller, (request.params as { offeringId: string }).offeringId);

    app.get(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const query = request.query as Record<string, unknown>;
      return renderList(reply, person, query, notice('ok', DONE[String(query.done)]));
    });

    app.get(`${SECTION}/new`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      return renderNew(reply, person);
    });

    app.post(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const draft = draftOfOfferingForm(person.form);
      const body = bodyOfOfferingDraft(draft);
      const outcome = await refusedOr(async () => {
        validCreation(body);
        return offerings.create(person.caller, body as CreateOffering);
      });
      if (outcome.refusal) return renderNew(reply, person, { draft, ...outcome.refusal }, outcome.refusal.statusCode);
      return reply.redirect(`${base(person)}/${outcome.value}?done=created`, 303);
    });

    // Before the routes with an offering's id: their own page.
    offeringCategoriesPart(tools, offeringsSection).routes(app, admitted);

    app.get(`${SECTION}/:offeringId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const offering = await offeringOf(request, person);
      const query = request.query as Record<string, unknown>;
      return renderOffering(reply, person, offering, { top: notice('ok', DONE[String(query.done)]), query });
    });

    app.post(`${SECTION}/:offeringId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const offering = await offeringOf(request, person);
      const draft = draftOfOfferingForm(person.form);
      const body = bodyOfOfferingDraft(draft, offering);
      const outcome = await refusedOr(async () => {
        validUpdate(body);
        await offerings.update(person.caller, offering.id, body);
      });
      if (outcome.refusal) return renderOffering(reply, person, offering, { refused: { draft, ...outcome.refusal } }, outcome.refusal.statusCode);
      return reply.redirect(`${base(person)}/${offering.id}?done=saved`, 303);
    });

    app.post(`${SECTION}/:offeringId/delete`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const offering = await offeringOf(request, person);
      const outcome = await refusedOr(() => offerings.delete(person.caller, offering.id));
      if (outcome.refusal) {
        return renderOffering(
          reply,
          person,
          offering,
          { top: refusalNotice(`${offering.title} was not deleted: ${outcome.refusal.message}`, {}) },
          outcome.refusal.statusCode,
        );
      }
      return reply.redirect(`${base(person)}?done=deleted`, 303);
    });

    registrations.routes(app, admitted, offeringOf, (reply, person, offering, state, statusCode) =>
      renderOffering(reply, person, offering, { registrations: state }, statusCode),
    );
  },
};
