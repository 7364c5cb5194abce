import type { FieldErrors } from '../lib/domain-errors.js';
import { html, type Html } from '../pages/html.js';
import { csrfField, type PageContext } from '../pages/layout.js';
import type { FormBody } from '../pages/userfield-inputs.js';

/**
 * The text a form sent under `name` (the first, when sent more than once), or ''. A text area's lines
 * arrive ended by CRLF: they are kept as the API's clients write them, with LF, so that a text sent back
 * unchanged is the same text.
 */
export function formValue(form: FormBody, name: string): string {
  const value = form[name];
  return ((Array.isArray(value) ? value[0] : value) ?? '').replace(/\r\n?/g, '\n');
}

/** Every value a form sent under `name` (ticked checkboxes). */
export function formValues(form: FormBody, name: string): string[] {
  return [form[name] ?? []].flat();
}

/**
 * Where an *Up* or *Down* button (`direction`) moves a thing at `orderIndex`: one place before or after;
 * nothing to do (undefined) for the first moved up, or a thing in no list.
 */
export function movedIndex(form: FormBody, orderIndex: number | undefined): number | undefined {
  if (orderIndex === undefined) return undefined;
  const moved = orderIndex + (formValue(form, 'direction') === 'up' ? -1 : 1);
  return moved >= 0 ? moved : undefined;
}

/** A number typed in a form as the API takes it; what is no number is passed on as typed, for the schema to refuse in its words. */
export function typedNumber(text: string): number | string {
  const trimmed = text.trim();
  return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
}

/** A datetime-local input's `yyyy-mm-ddThh:mm` as a UTC timestamp; anything else as typed, for the schema to refuse. */
export function timestampOf(text: string): string {
  const trimmed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(trimmed)) return `${trimmed}:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(trimmed)) return `${trimmed}Z`;
  return trimmed;
}

/** The first problem of `fieldErrors` named `name` or below it (`options[2].name` under `options`). */
export function problemOf(fieldErrors: FieldErrors | undefined, ...names: string[]): string | undefined {
  if (!fieldErrors) return undefined;
  for (const name of names) {
    const found = Object.entries(fieldErrors).find(([key]) => key === name || key.startsWith(`${name}.`) || key.startsWith(`${name}[`));
    if (found) return found[1];
  }
  return undefined;
}

/** The attributes that tie a control to its hint and its problem. */
export function describedBy(id: string, problem: string | undefined, hint = false): Html {
  const ids = [hint ? `${id}-hint` : '', problem ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`${problem ? html` aria-invalid="true"` : html``}${ids ? html` aria-describedby="${ids}"` : html``}`;
}

/** A control's hint and problem, under it. */
export function hintAndProblem(id: string, problem: string | undefined, hint?: string | Html): Html {
  return html`${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : html``}${problem ? html`<p class="field-error" id="${id}-error">${problem}</p>` : html``}`;
}

interface InputControl {
  id: string;
  name: string;
  label: string;
  value: string;
  problem?: string;
  hint?: string | Html;
  type?: 'text' | 'number' | 'date' | 'datetime-local' | 'email' | 'password';
  /** Further attributes: `required`, `maxlength`, `min`, ... */
  attributes?: Html;
}

/** A labelled input with its hint and problem. */
export function inputControl(control: InputControl): Html {
  const { id, problem, hint } = control;
  return html`<div class="field">
    <label for="${id}">${control.label}</label>
    <input
      type="${control.type ?? 'text'}"
      id="${id}"
      name="${control.name}"
      value="${control.value}"
      ${control.attributes ?? html``}${describedBy(id, problem, hint !== undefined)}
    />
    ${hintAndProblem(id, problem, hint)}
  </div>`;
}

/** A labelled text area with its hint and problem. The parser drops the newline that opens its content, so a text beginning with its own keeps it. */
export function textAreaControl(control: Omit<InputControl, 'type'> & { rows?: number }): Html {
  const { id, problem, hint } = control;
  return html`<div class="field">
    <label for="${id}">${control.label}</label>
    <textarea
      id="${id}"
      name="${control.name}"
      rows="${control.rows ?? 4}"
      ${control.attributes ?? html``}${describedBy(id, problem, hint !== undefined)}
    >
${control.value}</textarea>
    ${hintAndProblem(id, problem, hint)}
  </div>`;
}

/** A labelled single choice among `choices` (value, caption). */
export function selectControl(control: Omit<InputControl, 'type'> & { choices: readonly (readonly [string, string])[] }): Html {
  const { id, problem, hint } = control;
  return html`<div class="field">
    <label for="${id}">${control.label}</label>
    <select id="${id}" name="${control.name}" ${control.attributes ?? html``}${describedBy(id, problem, hint !== undefined)}>
      ${control.choices.map(([value, caption]) => html`<option value="${value}" ${value === control.value ? html` selected` : html``}>${caption}</option>`)}
    </select>
    ${hintAndProblem(id, problem, hint)}
  </div>`;
}

/** A labelled checkbox with its hint and problem. */
export function checkboxControl(control: Omit<InputControl, 'type' | 'value'> & { checked: boolean }): Html {
  const { id, problem, hint } = control;
  return html`<div class="field">
    <label
      ><input
        type="checkbox"
        id="${id}"
        name="${control.name}"
        value="true"
        ${control.checked ? html` checked` : html``}${describedBy(id, problem, hint !== undefined)}
      />
      ${control.label}</label
    >
    ${hintAndProblem(id, problem, hint)}
  </div>`;
}

/** What a refused form says above it: the service's sentence, and each problem of the fields in a list. */
export function refusalNotice(message: string, fieldErrors: FieldErrors): Html {
  const problems = Object.entries(fieldErrors);
  return html`<div class="notice error" role="alert">
    <p>${message}</p>
    ${
      problems.length > 1 || (problems.length === 1 && !message.includes(problems[0]![1]))
        ? html`<ul>
            ${problems.map(([name, problem]) => html`<li><code>${name}</code>: ${problem}</li>`)}
          </ul>`
        : html``
    }
  </div>`;
}

/** One button of a small form posting `fields` to `action` (a move, a deletion); `what` tells a screen reader what it acts on. */
export function buttonForm(
  context: PageContext,
  action: string,
  caption: string,
  what: string,
  options: { fields?: Record<string, string>; disabled?: boolean; confirm?: string; danger?: boolean } = {},
): Html {
  return html`<form method="post" action="${action}" ${options.confirm ? html` data-confirm="${options.confirm}"` : html``}>
    ${csrfField(context)}${Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <button type="submit" class="${options.danger ? 'danger' : 'secondary'}" ${options.disabled ? html` disabled` : html``}>
      ${caption}<span class="visually-hidden"> ${what}</span>
    </button>
  </form>`;
}
