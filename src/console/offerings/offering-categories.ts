import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FieldErrors } from '../../lib/domain-errors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../lib/password-policy.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, notice } from '../../pages/layout.js';
import { bodyValidator } from '../../plugins/validation.js';
import {
  CreateOfferingCategory,
  UpdateOfferingCategory,
  type OfferingCategory,
} from '../../resources/offering-categories/offering-categories.schemas.js';
import { offeringCategoriesService } from '../../resources/offering-categories/offering-categories.service.js';
import { dataTable } from '../console-page.js';
import { everyItem } from '../every-item.js';
import { buttonForm, formValue, inputControl, movedIndex, refusalNotice, textAreaControl } from '../form-controls.js';
import { refusedOr } from '../form-refusal.js';
import type { ConsoleRequest, ConsoleSection, ConsoleTools } from '../sections.js';

const validCreation = bodyValidator(CreateOfferingCategory, DEFAULT_PASSWORD_POLICY);
const validUpdate = bodyValidator(UpdateOfferingCategory, DEFAULT_PASSWORD_POLICY);

const DONE: Record<string, string> = {
  created: 'The offering category is made.',
  saved: 'The offering category is saved.',
  moved: 'The offering category is moved.',
  deleted: 'The offering category is deleted; the offerings in it lost it.',
};

interface CategoryDraft {
  name: string;
  description: string;
  color: string;
}

const draftOf = (category?: OfferingCategory): CategoryDraft => ({
  name: category?.name ?? '',
  description: category?.description ?? '',
  color: category?.color ?? '',
});

const draftOfForm = (form: Record<string, string | string[] | undefined>): CategoryDraft => ({
  name: formValue(form, 'name'),
  description: formValue(form, 'description'),
  color: formValue(form, 'color').trim(),
});

/** A colour as a swatch beside its code; the code says it to a screen reader. */
export function swatch(color: string | undefined): Html {
  if (!color) return html``;
  return html`<svg class="swatch" width="16" height="16" aria-hidden="true" focusable="false"><rect width="16" height="16" fill="${color}" /></svg>
    <code>${color}</code>`;
}

function categoryForm(person: ConsoleRequest, action: string, draft: CategoryDraft, errors: FieldErrors, submit: string): Html {
  return html`<form method="post" action="${action}">
    ${csrfField(person.context)}
    ${inputControl({ id: 'category-name', name: 'name', label: 'Name', value: draft.name, problem: errors.name, attributes: html` required maxlength="255"` })}
    ${textAreaControl({ id: 'category-description', name: 'description', label: 'Description (optional)', value: draft.description, problem: errors.description, rows: 3 })}
    ${inputControl({
      id: 'category-color',
      name: 'color',
      label: 'Colour (optional)',
      value: draft.color,
      problem: errors.color,
      hint: 'A hex colour such as #0b5cad.',
      attributes: html` maxlength="7" pattern="#[0-9a-fA-F]{6}"`,
    })}
    <div class="actions"><button type="submit">${submit}</button></div>
  </form>`;
}

/** The organization's offering categories: listed in their order, made, changed, reordered and deleted. */
export function offeringCategoriesPart(tools: ConsoleTools, section: ConsoleSection) {
  const categories = offeringCategoriesService(tools.db);
  const base = (person: ConsoleRequest) => `${tools.base(person)}/offerings/categories`;

  async function renderList(
    reply: FastifyReply,
    person: ConsoleRequest,
    top: Html,
    creating: { draft: CategoryDraft; errors: FieldErrors } | undefined,
    statusCode = 200,
  ) {
    const list = await everyItem((paging) => categories.list(person.caller, {}, paging));
    const url = base(person);
    const { context } = person;
    const body = html`<p><a href="${tools.base(person)}/offerings">Back to the offerings</a></p>
      ${top}
      <section class="card" aria-labelledby="categories-title">
        <h2 id="categories-title">Offering categories</h2>
        ${dataTable('Offering categories', ['Name', 'Description', 'Colour', 'Order', 'Delete'], list, (category) => [
          html`<a href="${url}/${category.id}" id="category-${category.id}">${category.name}</a>`,
          category.description ?? '',
          swatch(category.color),
          html`<div class="actions">
            ${buttonForm(context, `${url}/${category.id}/move`, 'Up', `: move ${category.name} up`, { fields: { direction: 'up' }, disabled: category.orderIndex === 0 })}
            ${buttonForm(context, `${url}/${category.id}/move`, 'Down', `: move ${category.name} down`, {
              fields: { direction: 'down' },
              disabled: category.orderIndex === list.length - 1,
            })}
          </div>`,
          buttonForm(context, `${url}/${category.id}/delete`, 'Delete', category.name, {
            danger: true,
            confirm: `Delete the offering category ${category.name}? The offerings in it lose it.`,
          }),
        ])}
      </section>
      <section class="card" aria-labelledby="new-category-title">
        <h2 id="new-category-title">New offering category</h2>
        ${categoryForm(person, url, creating?.draft ?? draftOf(), creating?.errors ?? {}, 'Create the category')}
      </section>`;
    return tools.sendConsolePage(reply, person, section, { title: 'Offering categories', body }, statusCode);
  }

  async function renderEdit(
    reply: FastifyReply,
    person: ConsoleRequest,
    category: OfferingCategory,
    draft: CategoryDraft,
    refused?: { message: string; fieldErrors: FieldErrors },
    statusCode = 200,
  ) {
    const body = html`<p><a href="${base(person)}">Back to the offering categories</a></p>
      ${refused ? refusalNotice(refused.message, refused.fieldErrors) : html``}
      <section class="card" aria-labelledby="edit-title">
        <h2 id="edit-title">Change the category</h2>
        ${categoryForm(person, `${base(person)}/${category.id}`, draft, refused?.fieldErrors ?? {}, 'Save the category')}
      </section>`;
    return tools.sendConsolePage(reply, person, section, { title: `Offering category: ${category.name}`, body }, statusCode);
  }

  function routes(app: FastifyInstance, admitted: (request: FastifyRequest, reply: FastifyReply) => Promise<ConsoleRequest | undefined>): void {
    const path = '/:orgId/console/offerings/categories';
    const categoryOf = (request: FastifyRequest, person: ConsoleRequest) =>
      categories.get(person.caller, (request.params as { offeringCategoryId: string }).offeringCategoryId);
    const back = (person: ConsoleRequest, done: string, id?: string) => `${base(person)}?done=${done}${id ? `#category-${id}` : ''}`;

    app.get(path, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      return renderList(reply, person, notice('ok', DONE[String((request.query as Record<string, unknown>).done)]), undefined);
    });

    app.post(path, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const draft = draftOfForm(person.form);
      const input = {
        name: draft.name.trim(),
        ...(draft.description.trim() ? { description: draft.description } : {}),
        ...(draft.color ? { color: draft.color } : {}),
      };
      const outcome = await refusedOr(async () => {
        validCreation(input);
        return categories.create(person.caller, input);
      });
      if (outcome.refusal) {
        return renderList(
          reply,
          person,
          refusalNotice(outcome.refusal.message, outcome.refusal.fieldErrors),
          { draft, errors: outcome.refusal.fieldErrors },
          outcome.refusal.statusCode,
        );
      }
      return reply.redirect(back(person, 'created', outcome.value), 303);
    });

    app.get(`${path}/:offeringCategoryId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const category = await categoryOf(request, person);
      return renderEdit(reply, person, category, draftOf(category));
    });

    app.post(`${path}/:offeringCategoryId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const category = await categoryOf(request, person);
      const draft = draftOfForm(person.form);
      const input = { name: draft.name.trim(), description: draft.description, color: draft.color };
      const outcome = await refusedOr(async () => {
        validUpdate(input);
        await categories.update(person.caller, category.id, input);
      });
      if (outcome.refusal) return renderEdit(reply, person, category, draft, outcome.refusal, outcome.refusal.statusCode);
      return reply.redirect(back(person, 'saved', category.id), 303);
    });

    app.post(`${path}/:offeringCategoryId/move`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const category = await categoryOf(request, person);
      const orderIndex = movedIndex(person.form, category.orderIndex);
      if (orderIndex !== undefined) await categories.update(person.caller, category.id, { orderIndex });
      return reply.redirect(back(person, 'moved', category.id), 303);
    });

    app.post(`${path}/:offeringCategoryId/delete`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const category = await categoryOf(request, person);
      await categories.delete(person.caller, category.id);
      return reply.redirect(back(person, 'deleted'), 303);
    });
  }

  return { routes };
}
