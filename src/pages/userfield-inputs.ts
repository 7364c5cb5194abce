import type { FieldErrors } from '../lib/domain-errors.js';
import type { UserfieldValues } from '../resources/userfield-values/userfield-values.schemas.js';
import type { Userfield } from '../resources/userfields/userfields.schemas.js';
import { html, type Html } from './html.js';
import type { Messages } from './locales/messages.js';

/**
 * Userfields as a person fills them in on a page, and the form's answer as the values the API takes:
 * each field is an input of its type, named `field.<id>`, and the form lists the fields it showed
 * (`shown`), so that a box left unticked is told from a field the form never had.
 */

const FIELD = 'field.';

/** A form's fields as the body parser gives them: one string, or several for a name sent more than once. */
export type FormBody = Record<string, string | string[] | undefined>;

function inputId(field: Userfield): string {
  return `field-${field.id}`;
}

/** mm/dd/yyyy (v5) → yyyy-mm-dd (an HTML date input), and back. */
export const toDateInput = (value: string) => `${value.slice(6, 10)}-${value.slice(0, 2)}-${value.slice(3, 5)}`;
export const fromDateInput = (value: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value.slice(5, 7)}/${value.slice(8, 10)}/${value.slice(0, 4)}` : undefined;

function label(field: Userfield, t: Messages): Html {
  return html`${field.name ?? ''}${field.required ? html` <span class="required">(${t.fields.required})</span>` : html``}`;
}

function describedBy(field: Userfield, error: string | undefined): Html {
  return error ? html` aria-invalid="true" aria-describedby="${inputId(field)}-error"` : html``;
}

function errorLine(field: Userfield, error: string | undefined): Html {
  return error ? html`<p class="field-error" id="${inputId(field)}-error">${error}</p>` : html``;
}

function choiceOptions(names: readonly string[], chosen: unknown, t: Messages): Html {
  return html`<option value="">${t.fields.choose}</option>
    ${names.map((name) => html`<option value="${name}" ${chosen === name ? html` selected` : html``}>${name}</option>`)}`;
}

/** One field as its input, with its label, its current value and its error. */
export function fieldInput(field: Userfield, value: unknown, error: string | undefined, t: Messages): Html {
  const id = inputId(field);
  const name = `${FIELD}${field.id}`;
  const required = field.required ? html` required` : html``;
  const shown = html`<input type="hidden" name="shown" value="${field.id}" />`;
  const options = (field.options ?? []).map((option) => option.name);
  switch (field.type) {
    case 'message':
      return html`<div class="field"><p>${field.message ?? ''}</p></div>`;
    case 'checkbox':
      return html`<div class="field">
        ${shown}<label
          ><input type="checkbox" id="${id}" name="${name}" value="on" ${value === true ? html` checked` : html``}${describedBy(field, error)} />
          ${label(field, t)}</label
        >${errorLine(field, error)}
      </div>`;
    case 'checkboxes':
    case 'radiobuttons': {
      const multiple = field.type === 'checkboxes';
      const chosen = multiple ? (Array.isArray(value) ? value : []) : [value];
      return html`<div class="field">${shown}<fieldset${describedBy(field, error)}><legend>${label(field, t)}</legend>${options.map(
        (option, index) =>
          html`<label
            ><input
              type="${multiple ? 'checkbox' : 'radio'}"
              name="${name}"
              value="${option}"
              id="${id}-${index}"
              ${chosen.includes(option) ? html` checked` : html``}${!multiple && index === 0 ? required : html``}
            />
            ${option}</label
          >`,
      )}</fieldset>${errorLine(field, error)}</div>`;
    }
    case 'dropdown':
    case 'yesno':
    case 'truefalse': {
      const names = field.type === 'dropdown' ? options : field.type === 'yesno' ? ['yes', 'no'] : ['true', 'false'];
      const shownValue = field.type === 'truefalse' && typeof value === 'boolean' ? String(value) : value;
      const captions: Record<string, string> = { yes: t.fields.yes, no: t.fields.no, true: t.fields.true, false: t.fields.false };
      return html`<div class="field">
        ${shown}<label for="${id}">${label(field, t)}</label
        ><select id="${id}" name="${name}" ${required}${describedBy(field, error)}>
          ${
            field.type === 'dropdown'
              ? choiceOptions(names, shownValue, t)
              : html`<option value="">${t.fields.choose}</option>
                  ${names.map(
                    (choice) => html`<option value="${choice}" ${shownValue === choice ? html` selected` : html``}>${captions[choice]}</option>`,
                  )}`
          }</select
        >${errorLine(field, error)}
      </div>`;
    }
    case 'date':
      return html`<div class="field">
        ${shown}<label for="${id}">${label(field, t)}</label
        ><input
          type="date"
          id="${id}"
          name="${name}"
          value="${typeof value === 'string' ? toDateInput(value) : ''}"
          ${required}${describedBy(field, error)}
        />${errorLine(field, error)}
      </div>`;
    default: {
      const type = field.type === 'email' ? 'email' : 'text';
      const mode = field.type === 'number' ? html` inputmode="numeric"` : field.type === 'decimal' ? html` inputmode="decimal"` : html``;
      return html`<div class="field">
        ${shown}<label for="${id}">${label(field, t)}</label
        ><input
          type="${type}"
          id="${id}"
          name="${name}"
          value="${typeof value === 'string' || typeof value === 'number' ? String(value) : ''}"
          ${mode}${required}${describedBy(field, error)}
        />${errorLine(field, error)}
      </div>`;
    }
  }
}

function first(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
}

/**
 * The values a form sends for the fields it showed, as PUT /users/{id}/userfieldvalues takes them
 * (null clears), with the errors of what cannot be read and of required fields left empty. Only the
 * fields of `fields` are read: a name of another field is ignored.
 */
export function valuesOfForm(fields: readonly Userfield[], body: FormBody, t: Messages): { values: UserfieldValues; errors: FieldErrors } {
  const shown = new Set([body.shown ?? []].flat());
  const values: UserfieldValues = {};
  const errors: FieldErrors = {};
  for (const field of fields) {
    if (!shown.has(field.id) || field.type === 'message') continue;
    const raw = body[`${FIELD}${field.id}`];
    let value: unknown;
    switch (field.type) {
      case 'checkbox':
        value = first(raw) === 'on';
        break;
      case 'checkboxes': {
        const chosen = [raw ?? []].flat().filter((name) => name !== '');
        value = chosen.length > 0 ? chosen : null;
        break;
      }
      case 'number': {
        const text = first(raw);
        value = text === '' ? null : /^[-+]?\d+$/.test(text) ? Number(text) : undefined;
        if (value === undefined) errors[field.id] = t.fields.notAnInteger;
        break;
      }
      case 'decimal': {
        const text = first(raw).replace(',', '.');
        value = text === '' ? null : /^[-+]?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : undefined;
        if (value === undefined) errors[field.id] = t.fields.notANumber;
        break;
      }
      case 'date': {
        const text = first(raw);
        value = text === '' ? null : fromDateInput(text);
        if (value === undefined) errors[field.id] = t.fields.dateHint;
        break;
      }
      case 'truefalse': {
        const text = first(raw);
        value = text === '' ? null : text === 'true';
        break;
      }
      default: {
        const text = first(raw);
        value = text === '' ? null : text;
      }
    }
    if (errors[field.id] !== undefined) continue;
    if (field.required && value === null) errors[field.id] = t.fields.required;
    else values[field.id] = value;
  }
  return { values, errors };
}
