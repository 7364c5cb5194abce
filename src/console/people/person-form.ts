import type { FieldErrors } from '../../lib/domain-errors.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, type PageContext } from '../../pages/layout.js';
import type { FormBody } from '../../pages/userfield-inputs.js';
import { ACCOUNT_TYPES, type AccountType, type User } from '../../resources/users/users.schemas.js';
import { checkboxControl, formValue, inputControl, problemOf, selectControl } from '../form-controls.js';

/** Each kind of account in words. */
export const ACCOUNT_KIND_NAMES: Record<AccountType, string> = {
  learner: 'Learner',
  courseAdministrator: 'Course administrator',
  organizationAdministrator: 'Organization administrator',
};

const KIND_CHOICES = ACCOUNT_TYPES.map((kind) => [kind, ACCOUNT_KIND_NAMES[kind]] as const);

/** A person's profile as its form shows it: their own values, or what was typed. */
export interface PersonDraft {
  email: string;
  firstName: string;
  lastName: string;
  username: string;
  locale: string;
  tags: string;
  accountType: string;
}

export function draftOfPerson(user?: User): PersonDraft {
  return {
    email: user?.email ?? '',
    firstName: user?.firstName ?? '',
    lastName: user?.lastName ?? '',
    username: user?.username ?? '',
    locale: user?.locale ?? '',
    tags: (user?.tags ?? []).join(', '),
    accountType: user?.accountType ?? 'learner',
  };
}

export function draftOfPersonForm(form: FormBody): PersonDraft {
  return {
    email: formValue(form, 'email'),
    firstName: formValue(form, 'firstName'),
    lastName: formValue(form, 'lastName'),
    username: formValue(form, 'username'),
    locale: formValue(form, 'locale'),
    tags: formValue(form, 'tags'),
    accountType: formValue(form, 'accountType'),
  };
}

/**
 * The body of POST /users (`editing` false) or PUT /users/{id} for what the form sent: a new person
 * leaves out what is empty, a person edited has it cleared (`null`). Texts are sent as typed, for the
 * schema to refuse in its words.
 */
export function bodyOfPersonDraft(draft: PersonDraft, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { email: draft.email.trim(), accountType: draft.accountType };
  const emptied = editing ? null : undefined;
  const set = (property: string, value: unknown) => {
    if (value !== undefined) body[property] = value;
  };
  for (const property of ['firstName', 'lastName', 'username', 'locale'] as const) {
    set(property, draft[property].trim() === '' ? emptied : draft[property].trim());
  }
  const tags = draft.tags.split(/[\s,]+/).filter(Boolean);
  set('tags', tags.length === 0 ? emptied : tags);
  return body;
}

interface PersonFormOptions {
  action: string;
  submit: string;
  fieldErrors?: FieldErrors;
  /** A new person's form also takes a first password. */
  withPassword?: { requireChange: boolean };
}

/** The profile's controls: email, names, username, language, tags and kind of account. */
export function personForm(context: PageContext, draft: PersonDraft, options: PersonFormOptions): Html {
  const errors = options.fieldErrors ?? {};
  const text = (name: keyof PersonDraft, label: string, attributes: Html = html` maxlength="255"`, hint?: string) =>
    inputControl({ id: `person-${name}`, name, label, value: draft[name], problem: problemOf(errors, name), attributes, ...(hint ? { hint } : {}) });
  return html`<form method="post" action="${options.action}">
    ${csrfField(context)}
    ${inputControl({
      id: 'person-email',
      name: 'email',
      label: 'Email',
      value: draft.email,
      problem: errors.email,
      type: 'email',
      attributes: html` required maxlength="254" autocomplete="off"`,
    })}
    <div class="inline-fields">${text('firstName', 'First name')} ${text('lastName', 'Last name')}</div>
    <div class="inline-fields">
      ${text('username', 'Username', html` maxlength="255" autocomplete="off"`, 'Unique in the organization; no spaces.')}
      ${text('locale', 'Language', html` maxlength="5"`, 'Such as en or fr-CA.')}
    </div>
    ${text('tags', 'Tags', html` maxlength="25600"`, 'Separated by commas or spaces.')}
    ${selectControl({
      id: 'person-accountType',
      name: 'accountType',
      label: 'Kind of account',
      value: draft.accountType,
      problem: errors.accountType,
      choices: KIND_CHOICES,
      hint: 'Course administrators manage offerings and registrations in the console; organization administrators, everything.',
    })}
    ${
      options.withPassword
        ? passwordControls(
            errors,
            options.withPassword.requireChange,
            'First password (optional)',
            'Without one, the person cannot sign in until a reset link sets one.',
          )
        : html``
    }
    <div class="actions"><button type="submit">${options.submit}</button></div>
  </form>`;
}

/** A password to set (never shown again), and whether the person must change it at their next sign-in. */
export function passwordControls(errors: FieldErrors, requireChange: boolean, label: string, hint: string): Html {
  return html`${inputControl({
    id: 'person-password',
    name: 'password',
    label,
    value: '',
    problem: errors.password,
    type: 'password',
    attributes: html` autocomplete="new-password" maxlength="64"`,
    hint,
  })}
  ${checkboxControl({
    id: 'person-requirePasswordChange',
    name: 'requirePasswordChange',
    label: 'Ask the person to choose their own password at their next sign-in',
    checked: requireChange,
    problem: errors.requirePasswordChange,
  })}`;
}
