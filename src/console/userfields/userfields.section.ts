import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FieldErrors } from '../../lib/domain-errors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../lib/password-policy.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, notice } from '../../pages/layout.js';
import { bodyValidator } from '../../plugins/validation.js';
import { userfieldCategoriesService } from '../../resources/userfield-categories/userfield-categories.service.js';
import {
  CreateUserfieldCategory,
  UpdateUserfieldCategory,
  type UserfieldCategory,
} from '../../resources/userfield-categories/userfield-categories.schemas.js';
import { CONSTRAINT_PAIRS, constraintKindOf, USERFIELD_TYPES, type UserfieldType } from '../../resources/userfields/userfield-types.js';
import { CreateUserfield, UpdateUserfield, type Userfield } from '../../resources/userfields/userfields.schemas.js';
import { userfieldsService } from '../../resources/userfields/userfields.service.js';
import { dataTable } from '../console-page.js';
import { everyItem } from '../every-item.js';
import { buttonForm, describedBy, formValue, hintAndProblem, movedIndex, refusalNotice, selectControl } from '../form-controls.js';
import { refusedOr } from '../form-refusal.js';
import { ORGANIZATION_ADMINISTRATORS, type ConsoleRequest, type ConsoleSection } from '../sections.js';
import { bodyOfDraft, draftOfField, draftOfForm, emptyDraft, fieldForm, TYPE_CAPTIONS, type FieldDraft } from './field-form.js';

const SECTION = '/:orgId/console/userfields';

const validCreation = bodyValidator(CreateUserfield, DEFAULT_PASSWORD_POLICY);
const validUpdate = bodyValidator(UpdateUserfield, DEFAULT_PASSWORD_POLICY);
const validCategory = bodyValidator(CreateUserfieldCategory, DEFAULT_PASSWORD_POLICY);
const validCategoryChange = bodyValidator(UpdateUserfieldCategory, DEFAULT_PASSWORD_POLICY);

/** What the list says after a change, by the `done` of its address. */
const DONE: Record<string, string> = {
  'field-created': 'The field is made.',
  'field-saved': 'The field is saved.',
  'field-moved': 'The field is moved.',
  'field-deleted': "The field is deleted, with every person's value of it.",
  'field-taken-out': 'The predefined field is out of its category: people no longer see it; its values are kept.',
  'category-created': 'The category is made.',
  'category-renamed': 'The category is renamed.',
  'category-moved': 'The category is moved.',
  'category-deleted': 'The category is deleted.',
};

const people = (count: number) => (count === 1 ? '1 active person' : `${count} active people`);
const fieldName = (field: Userfield) => field.name ?? (field.message ? `Message “${field.message.slice(0, 40)}”` : 'Message');

/** Each type, in the order of the API's list, for the choice of a new field's type. */
const TYPE_CHOICES = USERFIELD_TYPES.map((type) => [type, TYPE_CAPTIONS[type]] as const);

function isType(value: string): value is UserfieldType {
  return (USERFIELD_TYPES as readonly string[]).includes(value);
}

/** What the field holds besides its name, in a few words. */
function details(field: Userfield): string {
  if (field.options) return field.options.map((option) => (option.selected ? `${option.name} (default)` : option.name)).join(', ');
  if (field.message) return field.message.length > 80 ? `${field.message.slice(0, 80)}…` : field.message;
  const kind = constraintKindOf(field.type as UserfieldType);
  if (!kind || !field.constraints) return '';
  const [minimum, maximum] = CONSTRAINT_PAIRS[kind];
  return [
    field.constraints[minimum] === undefined ? '' : `from ${field.constraints[minimum]}`,
    field.constraints[maximum] === undefined ? '' : `to ${field.constraints[maximum]}`,
  ]
    .filter(Boolean)
    .join(' ')
    .concat(kind === 'length' ? ' characters' : '');
}

/** What the category list shows of a rename or a creation refused: what was typed, and why. */
interface CategoryState {
  renaming?: { id: string; name: string; problem: string };
  creating?: { name: string; type: string; problem: string };
}

/**
 * Userfields and their categories: the fields by category (public, private, then the predefined ones in
 * none), made, changed, moved, reordered and deleted here through the same services as the API, and
 * the categories made, renamed, reordered and deleted. Making a field required says who is asked.
 */
export const userfieldsSection: ConsoleSection = {
  id: 'userfields',
  title: 'Userfields',
  path: '/userfields',
  allowed: ORGANIZATION_ADMINISTRATORS,
  routes(app, tools) {
    const fields = userfieldsService(tools.db);
    const categories = userfieldCategoriesService(tools.db);
    const base = (person: ConsoleRequest) => `${tools.base(person)}/userfields`;

    const everyField = (person: ConsoleRequest) => everyItem((paging) => fields.list(person.caller, {}, paging));
    const everyCategory = (person: ConsoleRequest) => everyItem((paging) => categories.list(person.caller, {}, paging));

    async function admitted(request: FastifyRequest, reply: FastifyReply) {
      return tools.consoleRequest(request, reply, userfieldsSection);
    }

    /** What the organization's people meet of a field made required (`lacking` of them have no value): asked at their next sign-in, when it is public. */
    function whoIsAsked(field: Userfield, lacking: number): string {
      if (field.categoryType === 'private') {
        return `${fieldName(field)} is required, in a private category: people do not see it, so nobody is asked for it at sign-in; ${people(lacking)} have no value.`;
      }
      return `${fieldName(field)} is required: ${people(lacking)} without a value will be asked for one at their next sign-in.`;
    }

    /** The hint beside the Required box: who has no value now (`lacking`; of a new field, everyone), and what required does to them. */
    function requiredHint(lacking: number, field?: Userfield): Html {
      const rule =
        'A required field of a public category is asked at the next sign-in of each person without a value; a private one is asked of nobody.';
      return field
        ? html`${rule} <strong>${people(lacking)} have no value of this field now.</strong>`
        : html`${rule} <strong>No one has a value of a new field: ${people(lacking)} would be asked.</strong>`;
    }

    async function renderList(reply: FastifyReply, person: ConsoleRequest, top: Html, state: CategoryState = {}, statusCode = 200) {
      const [all, categoryList] = await Promise.all([everyField(person), everyCategory(person)]);
      const { context } = person;
      const url = base(person);
      const inCategory = (category: UserfieldCategory) => all.filter((field) => field.categoryId === category.id);
      const unplaced = all.filter((field) => field.categoryId === undefined);
      const fieldRows = (category: UserfieldCategory) => {
        const list = inCategory(category);
        return dataTable(`Fields of ${category.name}`, ['Position', 'Name', 'Type', 'Required', 'Details', 'Change'], list, (field) => [
          String((field.orderIndex ?? 0) + 1),
          html`<a href="${url}/${field.id}" id="field-${field.id}">${fieldName(field)}</a
            >${field.readOnly ? html` <span class="badge muted">predefined</span>` : html``}`,
          TYPE_CAPTIONS[field.type as UserfieldType],
          field.required ? 'Required' : '',
          details(field),
          html`<div class="actions">
            ${buttonForm(context, `${url}/${field.id}/move`, 'Up', `: move ${fieldName(field)} up`, { fields: { direction: 'up' }, disabled: field.orderIndex === 0 })}
            ${buttonForm(context, `${url}/${field.id}/move`, 'Down', `: move ${fieldName(field)} down`, {
              fields: { direction: 'down' },
              disabled: field.orderIndex === list.length - 1,
            })}
            ${
              field.readOnly
                ? buttonForm(context, `${url}/${field.id}/delete`, 'Take out', `${fieldName(field)} of the category`, {
                    confirm: `Take ${fieldName(field)} out of ${category.name}? People no longer see it; its values are kept.`,
                  })
                : buttonForm(context, `${url}/${field.id}/delete`, 'Delete', fieldName(field), {
                    danger: true,
                    confirm: `Delete ${fieldName(field)}? Every person's value of it is deleted with it.`,
                  })
            }
          </div>`,
        ]);
      };
      const ofType = (type: 'public' | 'private') => categoryList.filter((category) => category.type === type);
      const body = html`${top}
        <p>
          The fields people fill in beyond their name and email. Those of a <strong>public</strong> category are theirs to see and change (on the
          sign-in steps and the account page); those of a <strong>private</strong> category only administrators see.
        </p>
        <form method="get" action="${url}/new" class="inline-fields card">
          ${selectControl({ id: 'new-type', name: 'type', label: 'Type of a new field', value: 'text', choices: TYPE_CHOICES })}
          <div class="field"><button type="submit">New field</button></div>
        </form>
        ${[...ofType('public'), ...ofType('private')].map(
          (category) =>
            html`<section class="card" aria-labelledby="category-${category.id}-title">
              <h2 id="category-${category.id}-title">${category.name} <span class="badge muted">${category.type}</span></h2>
              ${fieldRows(category)}
            </section>`,
        )}
        <section class="card" aria-labelledby="unplaced-title">
          <h2 id="unplaced-title">Predefined fields in no category</h2>
          <p class="hint">Every organization has them; people see one only once it is placed in a category (open it to choose one).</p>
          ${dataTable('Predefined fields in no category', ['Name', 'Type'], unplaced, (field) => [
            html`<a href="${url}/${field.id}" id="field-${field.id}">${fieldName(field)}</a>`,
            TYPE_CAPTIONS[field.type as UserfieldType],
          ])}
        </section>
        ${categoriesCard(person, categoryList, all, state)}`;
      return tools.sendConsolePage(reply, person, userfieldsSection, { title: 'Userfields', body }, statusCode);
    }

    function categoriesCard(
      person: ConsoleRequest,
      categoryList: readonly UserfieldCategory[],
      all: readonly Userfield[],
      state: CategoryState,
    ): Html {
      const { context } = person;
      const url = `${base(person)}/categories`;
      const counts = (category: UserfieldCategory) => all.filter((field) => field.categoryId === category.id).length;
      const lastOf = (type: string) => categoryList.filter((category) => category.type === type).length - 1;
      const creating = state.creating;
      return html`<section class="card" aria-labelledby="categories-title">
        <h2 id="categories-title">Categories</h2>
        <p class="hint">Public categories come first, then private ones, each in their order. A category holding fields cannot be deleted.</p>
        ${dataTable('Categories', ['Name', 'Type', 'Fields', 'Order', 'Rename', 'Delete'], categoryList, (category) => {
          const renaming = state.renaming?.id === category.id ? state.renaming : undefined;
          const id = `rename-${category.id}`;
          return [
            html`<span id="category-${category.id}">${category.name}</span>`,
            category.type,
            String(counts(category)),
            html`<div class="actions">
              ${buttonForm(context, `${url}/${category.id}/move`, 'Up', `: move ${category.name} up`, { fields: { direction: 'up' }, disabled: category.orderIndex === 0 })}
              ${buttonForm(context, `${url}/${category.id}/move`, 'Down', `: move ${category.name} down`, {
                fields: { direction: 'down' },
                disabled: category.orderIndex === lastOf(category.type),
              })}
            </div>`,
            html`<form method="post" action="${url}/${category.id}" class="inline-fields">
              ${csrfField(context)}
              <label for="${id}" class="visually-hidden">New name of ${category.name}</label>
              <input
                type="text"
                id="${id}"
                name="name"
                value="${renaming?.name ?? category.name}"
                required
                maxlength="255"
                ${describedBy(id, renaming?.problem)}
              />
              <button type="submit" class="secondary">Rename<span class="visually-hidden"> ${category.name}</span></button>
              ${hintAndProblem(id, renaming?.problem)}
            </form>`,
            buttonForm(context, `${url}/${category.id}/delete`, 'Delete', category.name, {
              danger: true,
              confirm: `Delete the category ${category.name}?`,
            }),
          ];
        })}
        <h3>New category</h3>
        <form method="post" action="${url}">
          ${csrfField(context)}
          <div class="field">
            <label for="category-name">Name</label>
            <input
              type="text"
              id="category-name"
              name="name"
              required
              maxlength="255"
              value="${creating?.name ?? ''}"
              ${describedBy('category-name', creating?.problem)}
            />
            ${hintAndProblem('category-name', creating?.problem)}
          </div>
          <fieldset>
            <legend>Type</legend>
            <label
              ><input type="radio" name="type" value="public" ${creating?.type === 'private' ? html`` : html` checked`} /> Public: people see and fill
              in its fields</label
            >
            <label
              ><input type="radio" name="type" value="private" ${creating?.type === 'private' ? html` checked` : html``} /> Private: administrators
              only</label
            >
          </fieldset>
          <div class="actions"><button type="submit">Create the category</button></div>
        </form>
      </section>`;
    }

    async function renderNew(
      reply: FastifyReply,
      person: ConsoleRequest,
      draft: FieldDraft | undefined,
      refused?: { message: string; fieldErrors: FieldErrors; optionSources: string[] },
      statusCode = 200,
    ) {
      const url = base(person);
      const chooser = html`<form method="get" action="${url}/new" class="inline-fields card">
        ${selectControl({ id: 'new-type', name: 'type', label: 'Type', value: draft?.type ?? 'text', choices: TYPE_CHOICES })}
        <div class="field"><button type="submit" class="secondary">Choose this type</button></div>
      </form>`;
      const body = draft
        ? html`<p><a href="${url}">Back to the userfields</a></p>
            ${refused ? refusalNotice(refused.message, refused.fieldErrors) : html``} ${chooser}
            <section class="card" aria-labelledby="form-title">
              <h2 id="form-title">${TYPE_CAPTIONS[draft.type]}</h2>
              ${fieldForm(person.context, draft, {
                action: url,
                categories: await everyCategory(person),
                fieldErrors: refused?.fieldErrors ?? {},
                optionSources: refused?.optionSources ?? [],
                requiredHint: requiredHint(await fields.activeUsersWithoutValue(person.caller)),
                submit: 'Create the field',
              })}
            </section>`
        : html`<p><a href="${url}">Back to the userfields</a></p>
            ${chooser}`;
      return tools.sendConsolePage(reply, person, userfieldsSection, { title: 'New userfield', body }, statusCode);
    }

    async function renderEdit(
      reply: FastifyReply,
      person: ConsoleRequest,
      field: Userfield,
      draft: FieldDraft,
      refused?: { message: string; fieldErrors: FieldErrors; optionSources: string[] },
      statusCode = 200,
    ) {
      const url = base(person);
      // One count of the people without a value, for the notice and the hint.
      const lacking = await fields.activeUsersWithoutValue(person.caller, field.id);
      const required = field.required && field.categoryType !== undefined ? notice('ok', whoIsAsked(field, lacking)) : html``;
      const body = html`<p><a href="${url}">Back to the userfields</a></p>
        ${refused ? refusalNotice(refused.message, refused.fieldErrors) : required}
        <section class="card" aria-labelledby="form-title">
          <h2 id="form-title">Change the field</h2>
          ${fieldForm(person.context, draft, {
            action: `${url}/${field.id}`,
            categories: await everyCategory(person),
            field,
            fieldErrors: refused?.fieldErrors ?? {},
            optionSources: refused?.optionSources ?? [],
            requiredHint: requiredHint(lacking, field),
            submit: 'Save the field',
          })}
        </section>
        ${
          field.categoryId === undefined
            ? html``
            : html`<section class="card" aria-labelledby="delete-title">
                <h2 id="delete-title">${field.readOnly ? 'Take it out of its category' : 'Delete the field'}</h2>
                <p>
                  ${field.readOnly ? 'People no longer see it; its values are kept, and it can be placed again.' : "Every person's value of it is deleted with it."}
                </p>
                ${buttonForm(person.context, `${url}/${field.id}/delete`, field.readOnly ? 'Take it out' : 'Delete the field', '', {
                  danger: !field.readOnly,
                  confirm: field.readOnly
                    ? `Take ${fieldName(field)} out of its category?`
                    : `Delete ${fieldName(field)}? Every person's value of it is deleted with it.`,
                })}
              </section>`
        }`;
      return tools.sendConsolePage(reply, person, userfieldsSection, { title: `Userfield: ${fieldName(field)}`, body }, statusCode);
    }

    const back = (person: ConsoleRequest, done: string, field?: string, extra = '') =>
      `${base(person)}?done=${done}${field ? `&field=${field}${extra}#field-${field}` : ''}`;

    app.get(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const query = request.query as Record<string, string | undefined>;
      const done = DONE[String(query.done)];
      let asked = html``;
      if (query.asked === '1' && query.field) {
        const outcome = await refusedOr(() => fields.get(person.caller, query.field!));
        if (!outcome.refusal && outcome.value.required) {
          asked = notice('ok', whoIsAsked(outcome.value, await fields.activeUsersWithoutValue(person.caller, outcome.value.id)));
        }
      }
      return renderList(reply, person, html`${notice('ok', done)}${asked}`);
    });

    app.get(`${SECTION}/new`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const { type } = request.query as { type?: unknown };
      return renderNew(reply, person, typeof type === 'string' && isType(type) ? emptyDraft(type) : undefined);
    });

    app.post(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const type = formValue(person.form, 'type');
      if (!isType(type)) return renderNew(reply, person, undefined, undefined, 400);
      const draft = draftOfForm(type, person.form);
      const { body, optionSources } = bodyOfDraft(draft);
      const outcome = await refusedOr(async () => {
        validCreation(body);
        return fields.create(person.caller, body as CreateUserfield);
      });
      if (outcome.refusal) return renderNew(reply, person, draft, { ...outcome.refusal, optionSources }, outcome.refusal.statusCode);
      return reply.redirect(back(person, 'field-created', outcome.value, draft.required ? '&asked=1' : ''), 303);
    });

    /** The field of the path, in the person's organization (another's is a 404 page). */
    const fieldOf = (request: FastifyRequest, person: ConsoleRequest) => fields.get(person.caller, (request.params as { fieldId: string }).fieldId);

    app.get(`${SECTION}/:fieldId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const field = await fieldOf(request, person);
      return renderEdit(reply, person, field, draftOfField(field));
    });

    app.post(`${SECTION}/:fieldId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const field = await fieldOf(request, person);
      const draft = draftOfForm(field.type as UserfieldType, person.form);
      const { body, optionSources } = bodyOfDraft(draft, field);
      const outcome = await refusedOr(async () => {
        validUpdate(body);
        await fields.update(person.caller, field.id, body);
      });
      if (outcome.refusal) return renderEdit(reply, person, field, draft, { ...outcome.refusal, optionSources }, outcome.refusal.statusCode);
      const madeRequired = draft.required && !field.required;
      return reply.redirect(back(person, 'field-saved', field.id, madeRequired ? '&asked=1' : ''), 303);
    });

    app.post(`${SECTION}/:fieldId/move`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const field = await fieldOf(request, person);
      const orderIndex = movedIndex(person.form, field.orderIndex);
      if (orderIndex !== undefined) await fields.update(person.caller, field.id, { orderIndex });
      return reply.redirect(back(person, 'field-moved', field.id), 303);
    });

    app.post(`${SECTION}/:fieldId/delete`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const field = await fieldOf(request, person);
      const outcome = await refusedOr(() => fields.delete(person.caller, field.id));
      if (outcome.refusal) return renderList(reply, person, notice('error', outcome.refusal.message), {}, outcome.refusal.statusCode);
      return reply.redirect(back(person, field.readOnly ? 'field-taken-out' : 'field-deleted'), 303);
    });

    app.post(`${SECTION}/categories`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const name = formValue(person.form, 'name');
      const type = formValue(person.form, 'type');
      const input = { name: name.trim(), type };
      const outcome = await refusedOr(async () => {
        validCategory(input);
        return categories.create(person.caller, input as CreateUserfieldCategory);
      });
      if (outcome.refusal) {
        const problem = Object.values(outcome.refusal.fieldErrors)[0] ?? outcome.refusal.message;
        return renderList(
          reply,
          person,
          refusalNotice(`The category was not made: ${problem}`, {}),
          { creating: { name, type, problem } },
          outcome.refusal.statusCode,
        );
      }
      return reply.redirect(`${base(person)}?done=category-created#category-${outcome.value}`, 303);
    });

    const categoryOf = (request: FastifyRequest, person: ConsoleRequest) =>
      categories.get(person.caller, (request.params as { categoryId: string }).categoryId);

    app.post(`${SECTION}/categories/:categoryId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const category = await categoryOf(request, person);
      const name = formValue(person.form, 'name');
      const outcome = await refusedOr(async () => {
        validCategoryChange({ name: name.trim() });
        await categories.update(person.caller, category.id, { name: name.trim() });
      });
      if (outcome.refusal) {
        const problem = Object.values(outcome.refusal.fieldErrors)[0] ?? outcome.refusal.message;
        return renderList(
          reply,
          person,
          refusalNotice(`${category.name} was not renamed: ${problem}`, {}),
          { renaming: { id: category.id, name, problem } },
          outcome.refusal.statusCode,
        );
      }
      return reply.redirect(`${base(person)}?done=category-renamed#category-${category.id}`, 303);
    });

    app.post(`${SECTION}/categories/:categoryId/move`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const category = await categoryOf(request, person);
      const orderIndex = movedIndex(person.form, category.orderIndex);
      if (orderIndex !== undefined) await categories.update(person.caller, category.id, { orderIndex });
      return reply.redirect(`${base(person)}?done=category-moved#category-${category.id}`, 303);
    });

    app.post(`${SECTION}/categories/:categoryId/delete`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const category = await categoryOf(request, person);
      const outcome = await refusedOr(() => categories.delete(person.caller, category.id));
      if (outcome.refusal)
        return renderList(
          reply,
          person,
          refusalNotice(`${category.name} was not deleted: ${outcome.refusal.message}`, {}),
          {},
          outcome.refusal.statusCode,
        );
      return reply.redirect(`${base(person)}?done=category-deleted`, 303);
    });
  },
};
