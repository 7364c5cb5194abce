import type { FieldErrors } from '../../lib/domain-errors.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, type PageContext } from '../../pages/layout.js';
import type { FormBody } from '../../pages/userfield-inputs.js';
import type { OfferingCategory } from '../../resources/offering-categories/offering-categories.schemas.js';
import type { Offering } from '../../resources/offerings/offerings.schemas.js';
import {
  checkboxControl,
  describedBy,
  formValue,
  formValues,
  hintAndProblem,
  inputControl,
  problemOf,
  textAreaControl,
  timestampOf,
  typedNumber,
} from '../form-controls.js';

const DATES = ['beginDate', 'endDate', 'registrationBeginDate', 'registrationEndDate'] as const;
type DateProperty = (typeof DATES)[number];

const DATE_LABELS: Record<DateProperty, string> = {
  beginDate: 'Begins (UTC)',
  endDate: 'Ends (UTC)',
  registrationBeginDate: 'Registration opens (UTC)',
  registrationEndDate: 'Registration closes (UTC)',
};

/** An offering as its form shows it: its own values, or what was typed (dates as a datetime-local input holds them). */
export interface OfferingDraft extends Record<DateProperty, string> {
  title: string;
  catalogDescription: string;
  price: string;
  categoryIds: string[];
  tags: string;
  passingGrade: string;
  allowRetake: boolean;
  /** From 1; empty: last (new) or where it is. */
  position: string;
}

export function draftOfOffering(offering?: Offering): OfferingDraft {
  const date = (value: string | undefined) => value?.slice(0, 16) ?? '';
  return {
    title: offering?.title ?? '',
    beginDate: date(offering?.beginDate),
    endDate: date(offering?.endDate),
    registrationBeginDate: date(offering?.registrationBeginDate),
    registrationEndDate: date(offering?.registrationEndDate),
    catalogDescription: offering?.catalogDescription ?? '',
    price: offering?.price === undefined ? '' : String(offering.price),
    categoryIds: offering?.offeringCategoryIds ?? [],
    tags: (offering?.tags ?? []).join(', '),
    passingGrade: String(offering?.passingGrade ?? 70),
    allowRetake: offering?.allowRetake ?? false,
    position: offering ? String(offering.orderIndex + 1) : '',
  };
}

export function draftOfOfferingForm(form: FormBody): OfferingDraft {
  return {
    title: formValue(form, 'title'),
    beginDate: formValue(form, 'beginDate'),
    endDate: formValue(form, 'endDate'),
    registrationBeginDate: formValue(form, 'registrationBeginDate'),
    registrationEndDate: formValue(form, 'registrationEndDate'),
    catalogDescription: formValue(form, 'catalogDescription'),
    price: formValue(form, 'price'),
    categoryIds: formValues(form, 'category'),
    tags: formValue(form, 'tags'),
    passingGrade: formValue(form, 'passingGrade'),
    allowRetake: formValue(form, 'allowRetake') === 'true',
    position: formValue(form, 'position'),
  };
}

/**
 * The body of POST /offerings (no `offering`) or PUT /offerings/{id} for what the form sent: on an update
 * an emptied box clears its property (`null`), and the position is sent only when it changes.
 */
export function bodyOfOfferingDraft(draft: OfferingDraft, offering?: Offering): Record<string, unknown> {
  const body: Record<string, unknown> = { title: draft.title.trim() };
  const emptied = offering ? null : undefined;
  const set = (property: string, value: unknown) => {
    if (value !== undefined) body[property] = value;
  };
  for (const property of DATES) set(property, draft[property].trim() === '' ? emptied : timestampOf(draft[property]));
  set('catalogDescription', draft.catalogDescription.trim() === '' ? (offering ? '' : undefined) : draft.catalogDescription);
  set('price', draft.price.trim() === '' ? emptied : typedNumber(draft.price));
  const tags = draft.tags.split(/[\s,]+/).filter(Boolean);
  set('tags', tags.length === 0 ? emptied : tags);
  set('offeringCategoryIds', draft.categoryIds.length === 0 && !offering ? undefined : draft.categoryIds);
  if (draft.passingGrade.trim() !== '') body.passingGrade = typedNumber(draft.passingGrade);
  body.allowRetake = draft.allowRetake;
  const position = typedNumber(draft.position);
  if (draft.position.trim() !== '' && position !== (offering ? offering.orderIndex + 1 : undefined)) {
    body.orderIndex = typeof position === 'number' ? position - 1 : position;
  }
  return body;
}

export interface OfferingFormOptions {
  action: string;
  categories: readonly OfferingCategory[];
  fieldErrors?: FieldErrors;
  submit: string;
  /** A new offering is placed last unless told; an existing one shows where it is. */
  editing: boolean;
}

export function offeringForm(context: PageContext, draft: OfferingDraft, options: OfferingFormOptions): Html {
  const errors = options.fieldErrors ?? {};
  const categoriesProblem = problemOf(errors, 'offeringCategoryIds');
  const dateInput = (property: DateProperty) =>
    inputControl({
      id: `offering-${property}`,
      name: property,
      label: DATE_LABELS[property],
      value: draft[property],
      problem: errors[property],
      type: 'datetime-local',
    });
  return html`<form method="post" action="${options.action}">
    ${csrfField(context)}
    ${inputControl({ id: 'offering-title', name: 'title', label: 'Title', value: draft.title, problem: errors.title, attributes: html` required maxlength="255"` })}
    <fieldset>
      <legend>When it runs</legend>
      <div class="inline-fields">${dateInput('beginDate')} ${dateInput('endDate')}</div>
    </fieldset>
    <fieldset>
      <legend>Registration window</legend>
      <p class="hint">People can register between these; an empty bound leaves that side open.</p>
      <div class="inline-fields">${dateInput('registrationBeginDate')} ${dateInput('registrationEndDate')}</div>
    </fieldset>
    ${textAreaControl({
      id: 'offering-catalogDescription',
      name: 'catalogDescription',
      label: 'Catalog description',
      value: draft.catalogDescription,
      problem: errors.catalogDescription,
      rows: 4,
    })}
    <div class="inline-fields">
      ${inputControl({
        id: 'offering-price',
        name: 'price',
        label: 'Price',
        value: draft.price,
        problem: errors.price,
        type: 'number',
        attributes: html` min="0" step="0.01"`,
      })}
      ${inputControl({
        id: 'offering-passingGrade',
        name: 'passingGrade',
        label: 'Passing grade (0 to 100)',
        value: draft.passingGrade,
        problem: errors.passingGrade,
        type: 'number',
        attributes: html` min="0" max="100" step="any"`,
      })}
    </div>
    ${checkboxControl({
      id: 'offering-allowRetake',
      name: 'allowRetake',
      label: 'Allow a retake: a person whose registration was graded may register again',
      checked: draft.allowRetake,
      problem: errors.allowRetake,
    })}
    ${
      options.categories.length === 0
        ? html`<p class="hint">No offering categories yet.</p>`
        : html`<fieldset ${describedBy('offering-categories', categoriesProblem)}>
            <legend>Categories</legend>
            ${options.categories.map(
              (category) =>
                html`<label
                  ><input
                    type="checkbox"
                    name="category"
                    value="${category.id}"
                    ${draft.categoryIds.includes(category.id) ? html` checked` : html``}
                  />
                  ${category.name}</label
                >`,
            )}
            ${hintAndProblem('offering-categories', categoriesProblem)}
          </fieldset>`
    }
    ${inputControl({
      id: 'offering-tags',
      name: 'tags',
      label: 'Tags',
      value: draft.tags,
      problem: problemOf(errors, 'tags'),
      hint: 'Separated by commas or spaces.',
    })}
    ${inputControl({
      id: 'offering-position',
      name: 'position',
      label: 'Position in the catalog (1 is first)',
      value: draft.position,
      problem: errors.orderIndex,
      hint: options.editing ? undefined : 'Empty: last.',
      type: 'number',
      attributes: html` min="1" step="1"`,
    })}
    <div class="actions"><button type="submit">${options.submit}</button></div>
  </form>`;
}
