import { EVENT_TYPES } from '../../events/event-types.js';
import type { Webhook } from '../../resources/webhooks/webhooks.schemas.js';
import type { FieldErrors } from '../../lib/domain-errors.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, type PageContext } from '../../pages/layout.js';
import type { FormBody } from '../../pages/userfield-inputs.js';
import { describedBy, formValue, formValues, hintAndProblem, inputControl, problemOf, textAreaControl } from '../form-controls.js';

/** An endpoint as its form shows it: its own values, or what was typed. */
export interface EndpointDraft {
  url: string;
  description: string;
  events: string[];
}

export const draftOfEndpoint = (webhook?: Webhook): EndpointDraft => ({
  url: webhook?.url ?? '',
  description: webhook?.description ?? '',
  events: webhook?.events ?? [],
});

export const draftOfEndpointForm = (form: FormBody): EndpointDraft => ({
  url: formValue(form, 'url').trim(),
  description: formValue(form, 'description'),
  events: formValues(form, 'events'),
});

/** The body of POST /webhooks, or of PUT /webhooks/{id} (`editing`: an emptied description is removed). */
export function bodyOfEndpointDraft(draft: EndpointDraft, editing: boolean): Record<string, unknown> {
  const description = draft.description.trim() === '' ? (editing ? null : undefined) : draft.description;
  return { url: draft.url, events: draft.events, ...(description === undefined ? {} : { description }) };
}

/** The form of a new endpoint or of one changed: its URL, description and event types. */
export function endpointForm(
  context: PageContext,
  draft: EndpointDraft,
  options: { action: string; fieldErrors: FieldErrors; submit: string; prefix: string },
): Html {
  const { fieldErrors, prefix } = options;
  const eventsProblem = problemOf(fieldErrors, 'events');
  const eventsId = `${prefix}-events`;
  return html`<form method="post" action="${options.action}">
    ${csrfField(context)}
    ${inputControl({
      id: `${prefix}-url`,
      name: 'url',
      label: 'URL',
      value: draft.url,
      problem: problemOf(fieldErrors, 'url'),
      hint: 'https, to a public host name: every event is POSTed there, signed (Standard Webhooks).',
      attributes: html` required maxlength="2048" spellcheck="false"`,
    })}
    ${textAreaControl({
      id: `${prefix}-description`,
      name: 'description',
      label: 'Description (optional)',
      value: draft.description,
      problem: problemOf(fieldErrors, 'description'),
      rows: 2,
      attributes: html` maxlength="1000"`,
    })}
    <fieldset id="${eventsId}" ${describedBy(eventsId, eventsProblem)}>
      <legend>Event types</legend>
      <div class="choice-columns">
        ${EVENT_TYPES.map(
          (type) =>
            html`<label
              ><input type="checkbox" name="events" value="${type}" ${draft.events.includes(type) ? html` checked` : html``} />
              <code>${type}</code></label
            >`,
        )}
      </div>
      ${hintAndProblem(eventsId, eventsProblem)}
    </fieldset>
    <div class="actions"><button type="submit">${options.submit}</button></div>
  </form>`;
}
