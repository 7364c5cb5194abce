import type { FieldErrors } from '../../lib/domain-errors.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, type PageContext } from '../../pages/layout.js';
import { fromDateInput, toDateInput, type FormBody } from '../../pages/userfield-inputs.js';
import type { UserfieldCategory } from '../../resources/userfield-categories/userfield-categories.schemas.js';
import {
  allowsSeveralSelected,
  CONSTRAINT_PAIRS,
  constraintKindOf,
  hasProperty,
  SIZES,
  type UserfieldType,
} from '../../resources/userfields/userfield-types.js';
import type { Userfield } from '../../resources/userfields/userfields.schemas.js';
import {
  checkboxControl,
  describedBy,
  formValue,
  formValues,
  hintAndProblem,
  inputControl,
  problemOf,
  selectControl,
  textAreaControl,
  typedNumber,
} from '../form-controls.js';

/** Each type as an administrator reads it. */
export const TYPE_CAPTIONS: Record<UserfieldType, string> = {
  text: 'Text',
  number: 'Whole number',
  decimal: 'Decimal number',
  email: 'Email address',
  date: 'Date',
  dropdown: 'Dropdown list',
  radiobuttons: 'Radio buttons',
  checkbox: 'Single checkbox',
  checkboxes: 'Checkboxes',
  truefalse: 'True or false',
  yesno: 'Yes or no',
  message: 'Message (text shown among the fields)',
};

const SIZE_CAPTIONS: Record<(typeof SIZES)[number], string> = { small: 'Small', medium: 'Medium', mediumlarge: 'Medium-large', large: 'Large' };

const LIMIT_CAPTIONS = {
  length: ['Shortest length (characters)', 'Longest length (characters)'],
  value: ['Smallest value', 'Largest value'],
  date: ['Earliest date', 'Latest date'],
} as const;

interface OptionRow {
  name: string;
  selected: boolean;
  remove: boolean;
}

/** A field as its form shows it: the field's own values, or what was typed (texts as typed, dates as a date input holds them). */
export interface FieldDraft {
  type: UserfieldType;
  name: string;
  /** One `locale: label` a line. */
  localizedNames: string;
  categoryId: string;
  /** A category to create for the field, by name, with its type. */
  newCategory: string;
  newCategoryType: string;
  /** From 1; empty: the end of its category. */
  position: string;
  required: boolean;
  size: string;
  minimum: string;
  maximum: string;
  message: string;
  /** The options it has, each as typed (renamed), ticked as the default or for removal. */
  options: OptionRow[];
  /** Options to add, one a line. */
  newOptions: string;
}

const limitText = (limit: number | string | undefined) => (limit === undefined ? '' : typeof limit === 'string' ? toDateInput(limit) : String(limit));

export function draftOfField(field: Userfield): FieldDraft {
  const kind = constraintKindOf(field.type as UserfieldType);
  const [minimum, maximum] = kind ? CONSTRAINT_PAIRS[kind] : [];
  return {
    type: field.type as UserfieldType,
    name: field.name ?? '',
    localizedNames: Object.entries(field.localizedNames ?? {})
      .map(([locale, label]) => `${locale}: ${label}`)
      .join('\n'),
    categoryId: field.categoryId ?? '',
    newCategory: '',
    newCategoryType: 'public',
    position: field.orderIndex === undefined ? '' : String(field.orderIndex + 1),
    required: field.required ?? false,
    size: field.size ?? 'medium',
    minimum: minimum ? limitText(field.constraints?.[minimum]) : '',
    maximum: maximum ? limitText(field.constraints?.[maximum]) : '',
    message: field.message ?? '',
    options: (field.options ?? []).map((option) => ({ name: option.name, selected: option.selected, remove: false })),
    newOptions: '',
  };
}

export function emptyDraft(type: UserfieldType, categoryId = ''): FieldDraft {
  return {
    type,
    name: '',
    localizedNames: '',
    categoryId,
    newCategory: '',
    newCategoryType: 'public',
    position: '',
    required: false,
    size: 'medium',
    minimum: '',
    maximum: '',
    message: '',
    options: [],
    newOptions: '',
  };
}

/** What a field's form sent. */
export function draftOfForm(type: UserfieldType, form: FormBody): FieldDraft {
  const count = Math.min(Number(formValue(form, 'optionCount')) || 0, 1000);
  const selected = formValues(form, 'selected');
  const removed = formValues(form, 'remove');
  return {
    type,
    name: formValue(form, 'name'),
    localizedNames: formValue(form, 'localizedNames'),
    categoryId: formValue(form, 'categoryId'),
    newCategory: formValue(form, 'newCategory'),
    newCategoryType: formValue(form, 'newCategoryType') === 'private' ? 'private' : 'public',
    position: formValue(form, 'position'),
    required: formValue(form, 'required') === 'true',
    size: formValue(form, 'size'),
    minimum: formValue(form, 'minimum'),
    maximum: formValue(form, 'maximum'),
    message: formValue(form, 'message'),
    options: Array.from({ length: count }, (_, index) => ({
      name: formValue(form, `option.${index}`),
      selected: selected.includes(String(index)),
      remove: removed.includes(String(index)),
    })),
    newOptions: formValue(form, 'newOptions'),
  };
}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

/** `fr: Intitulé` lines as an object; the schema judges the locales and labels. */
function localizedNamesOf(text: string): Record<string, string> {
  return Object.fromEntries(
    lines(text).map((line) => {
      const colon = line.indexOf(':');
      return colon < 0 ? [line, ''] : [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
    }),
  );
}

/** A limit as the API takes it: a date input's yyyy-mm-dd as mm/dd/yyyy, a number as one; anything else as typed. */
function limitOf(text: string, date: boolean): number | string {
  return date ? (fromDateInput(text.trim()) ?? text.trim()) : typedNumber(text);
}

/** The body the API takes for a draft, and the control each option of its `options` came from (for their problems). */
export interface FieldBody {
  body: Record<string, unknown>;
  optionSources: string[];
}

/**
 * The body of POST /userfields (no `field`) or of PUT /userfields/{id} for what the form sent: on an update
 * every property the form shows, which the service compares with what the field has (an unchanged field
 * stays as it is), and the category or position only when they change.
 */
export function bodyOfDraft(draft: FieldDraft, field?: Userfield): FieldBody {
  const { type } = draft;
  const body: Record<string, unknown> = field ? {} : { type };
  const optionSources: string[] = [];
  if (hasProperty(type, 'name') && !field?.readOnly && (field || draft.name.trim() !== '')) body.name = draft.name.trim();
  if (type === 'message' && (field || draft.message.trim() !== '')) body.message = draft.message;
  if (hasProperty(type, 'localizedNames') && (field || draft.localizedNames.trim() !== ''))
    body.localizedNames = localizedNamesOf(draft.localizedNames);
  if (hasProperty(type, 'required')) body.required = draft.required;
  if (hasProperty(type, 'size')) body.size = draft.size;
  const kind = constraintKindOf(type);
  if (kind) {
    const [minimum, maximum] = CONSTRAINT_PAIRS[kind];
    const constraints: Record<string, unknown> = {};
    if (draft.minimum.trim() !== '') constraints[minimum] = limitOf(draft.minimum, kind === 'date');
    if (draft.maximum.trim() !== '') constraints[maximum] = limitOf(draft.maximum, kind === 'date');
    if (field || Object.keys(constraints).length > 0) body.constraints = constraints;
  }
  if (hasProperty(type, 'options')) {
    const options: { name: string; selected: boolean }[] = [];
    draft.options.forEach((option, index) => {
      if (option.remove) return;
      options.push({ name: option.name.trim(), selected: option.selected });
      optionSources.push(`option-${index}`);
    });
    for (const name of lines(draft.newOptions)) {
      options.push({ name, selected: false });
      optionSources.push('field-new-options');
    }
    if (field || options.length > 0) body.options = options;
  }
  if (draft.newCategory.trim() !== '') {
    body.categoryName = draft.newCategory.trim();
    body.categoryType = draft.newCategoryType;
  } else if (draft.categoryId !== '' && draft.categoryId !== field?.categoryId) {
    body.categoryId = draft.categoryId;
  }
  const position = typedNumber(draft.position);
  const moving = body.categoryId !== undefined || body.categoryName !== undefined;
  if (draft.position.trim() !== '' && (moving || field?.orderIndex === undefined || position !== field.orderIndex + 1)) {
    body.orderIndex = typeof position === 'number' ? position - 1 : position;
  }
  return { body, optionSources };
}

/** Where each problem of a refused body is shown: the control of the property it names. */
function problemsOf(fieldErrors: FieldErrors, optionSources: readonly string[]): Record<string, string> {
  const shown: Record<string, string> = {};
  const place = (control: string, problem: string | undefined) => {
    if (problem !== undefined) shown[control] ??= problem;
  };
  place('field-name', problemOf(fieldErrors, 'name'));
  place('field-localized', problemOf(fieldErrors, 'localizedNames'));
  place('field-category', problemOf(fieldErrors, 'categoryId', 'categoryName', 'categoryType'));
  place('field-position', problemOf(fieldErrors, 'orderIndex'));
  place('field-required', problemOf(fieldErrors, 'required'));
  place('field-size', problemOf(fieldErrors, 'size'));
  place('field-message', problemOf(fieldErrors, 'message'));
  for (const [name, problem] of Object.entries(fieldErrors)) {
    if (name.startsWith('constraints.minimum')) place('field-minimum', problem);
    else if (name.startsWith('constraints.maximum')) place('field-maximum', problem);
    else if (name === 'constraints') place('field-minimum', problem);
    const option = /^options\[(\d+)\]/.exec(name);
    if (option) place(optionSources[Number(option[1])] ?? 'field-new-options', problem);
    else if (name === 'options') place('field-new-options', problem);
  }
  return shown;
}

function categoryChoice(draft: FieldDraft, categories: readonly UserfieldCategory[], problem: string | undefined, field?: Userfield): Html {
  const group = (type: 'public' | 'private', label: string) => {
    const ofType = categories.filter((category) => category.type === type);
    return ofType.length === 0
      ? html``
      : html`<optgroup label="${label}">
          ${ofType.map((category) => html`<option value="${category.id}" ${category.id === draft.categoryId ? html` selected` : html``}>${category.name}</option>`)}
        </optgroup>`;
  };
  const none = !field?.categoryId;
  return html`<fieldset>
    <legend>Category</legend>
    <div class="field">
      <label for="field-category">Category</label>
      <select id="field-category" name="categoryId" ${describedBy('field-category', problem, true)}>
        ${none ? html`<option value="">${field ? 'No category: not shown to people' : 'Choose a category'}</option>` : html``}
        ${group('public', 'Public: people see and fill in')} ${group('private', 'Private: administrators only')}
      </select>
      ${hintAndProblem('field-category', problem, 'Fields of a public category are on the sign-in steps and the account page; those of a private one only here.')}
    </div>
    ${inputControl({
      id: 'field-new-category',
      name: 'newCategory',
      label: 'Or a new category',
      value: draft.newCategory,
      hint: 'A name no category has yet: the field goes into a new category of that name.',
      attributes: html` maxlength="255"`,
    })}
    <fieldset>
      <legend>Type of the new category</legend>
      ${(['public', 'private'] as const).map(
        (type) =>
          html`<label
            ><input type="radio" name="newCategoryType" value="${type}" ${draft.newCategoryType === type ? html` checked` : html``} />
            ${type === 'public' ? 'Public' : 'Private'}</label
          >`,
      )}
    </fieldset>
  </fieldset>`;
}

function optionsEditor(draft: FieldDraft, shown: Record<string, string>): Html {
  const several = allowsSeveralSelected(draft.type);
  const noDefault = !draft.options.some((option) => option.selected);
  return html`<fieldset>
    <legend>Options</legend>
    ${
      draft.options.length === 0
        ? html``
        : html`<p class="hint">
              Rename an option by editing it. A renamed or removed option is taken from the people who chose it: their value is cleared.
            </p>
            <input type="hidden" name="optionCount" value="${draft.options.length}" />
            ${draft.options.map((option, index) => {
              const id = `option-${index}`;
              return html`<div class="inline-fields option-row">
                <div class="field">
                  <label for="${id}">Option ${index + 1}</label>
                  <input type="text" id="${id}" name="option.${index}" value="${option.name}" maxlength="255" ${describedBy(id, shown[id])} />
                  ${hintAndProblem(id, shown[id])}
                </div>
                <label
                  ><input type="${several ? 'checkbox' : 'radio'}" name="selected" value="${index}" ${option.selected ? html` checked` : html``} />
                  Chosen by default<span class="visually-hidden"> (option ${index + 1})</span></label
                >
                <label
                  ><input type="checkbox" name="remove" value="${index}" ${option.remove ? html` checked` : html``} /> Remove<span
                    class="visually-hidden"
                  >
                    option ${index + 1}</span
                  ></label
                >
              </div>`;
            })}
            ${
              several
                ? html``
                : html`<label
                    ><input type="radio" name="selected" value="" ${noDefault ? html` checked` : html``} /> No option chosen by default</label
                  >`
            }`
    }
    ${textAreaControl({
      id: 'field-new-options',
      name: 'newOptions',
      label: draft.options.length === 0 ? 'Options, one a line' : 'Options to add, one a line',
      value: draft.newOptions,
      problem: shown['field-new-options'],
      rows: 4,
    })}
  </fieldset>`;
}

export interface FieldFormOptions {
  action: string;
  categories: readonly UserfieldCategory[];
  /** The field edited; none when one is made. */
  field?: Userfield;
  fieldErrors?: FieldErrors;
  optionSources?: readonly string[];
  /** What making it required means for the organization's people, beside the box. */
  requiredHint: Html;
  submit: string;
}

/** The form of a field of `draft.type`: only what the type has. */
export function fieldForm(context: PageContext, draft: FieldDraft, options: FieldFormOptions): Html {
  const { type } = draft;
  const { field } = options;
  const shown = problemsOf(options.fieldErrors ?? {}, options.optionSources ?? []);
  const kind = constraintKindOf(type);
  const limitInput = (which: 'minimum' | 'maximum', index: 0 | 1) =>
    inputControl({
      id: `field-${which}`,
      name: which,
      label: LIMIT_CAPTIONS[kind!][index],
      value: draft[which],
      problem: shown[`field-${which}`],
      type: kind === 'date' ? 'date' : 'number',
      attributes: kind === 'date' ? html`` : html` min="0" step="1"`,
    });
  return html`<form method="post" action="${options.action}">
    ${csrfField(context)}
    <p><strong>Type:</strong> ${TYPE_CAPTIONS[type]}</p>
    ${field ? html`` : html`<input type="hidden" name="type" value="${type}" />`}
    ${
      hasProperty(type, 'name')
        ? field?.readOnly
          ? html`<p><strong>Name:</strong> ${field.name} <span class="badge muted">predefined: its name never changes</span></p>`
          : inputControl({
              id: 'field-name',
              name: 'name',
              label: 'Name',
              value: draft.name,
              problem: shown['field-name'],
              attributes: html` maxlength="255"`,
            })
        : html``
    }
    ${
      type === 'message'
        ? textAreaControl({
            id: 'field-message',
            name: 'message',
            label: 'Message',
            value: draft.message,
            problem: shown['field-message'],
            hint: 'Shown to people among the fields, as written.',
            rows: 5,
          })
        : html``
    }
    ${
      hasProperty(type, 'localizedNames')
        ? textAreaControl({
            id: 'field-localized',
            name: 'localizedNames',
            label: 'Name in other languages (optional)',
            value: draft.localizedNames,
            problem: shown['field-localized'],
            hint: 'One a line, as a language code, a colon and the name: fr: Intitulé du poste',
            rows: 3,
          })
        : html``
    }
    ${hasProperty(type, 'options') ? optionsEditor(draft, shown) : html``}
    ${
      kind
        ? html`<fieldset>
            <legend>Constraints (optional)</legend>
            <div class="inline-fields">${limitInput('minimum', 0)} ${limitInput('maximum', 1)}</div>
          </fieldset>`
        : html``
    }
    ${
      hasProperty(type, 'size')
        ? selectControl({
            id: 'field-size',
            name: 'size',
            label: 'Width of the entry',
            value: draft.size,
            problem: shown['field-size'],
            choices: SIZES.map((size) => [size, SIZE_CAPTIONS[size]] as const),
          })
        : html``
    }
    ${
      hasProperty(type, 'required')
        ? checkboxControl({
            id: 'field-required',
            name: 'required',
            label: 'Required',
            checked: draft.required,
            problem: shown['field-required'],
            hint: options.requiredHint,
          })
        : html``
    }
    ${categoryChoice(draft, options.categories, shown['field-category'], field)}
    ${inputControl({
      id: 'field-position',
      name: 'position',
      label: 'Position in its category (1 is first)',
      value: draft.position,
      problem: shown['field-position'],
      hint: 'Empty: last.',
      type: 'number',
      attributes: html` min="1" step="1"`,
    })}
    <div class="actions"><button type="submit">${options.submit}</button></div>
  </form>`;
}
