import type { FastifyReply, FastifyRequest } from 'fastify';
import { CreateWebhook, UpdateWebhook, type Delivery, type Webhook } from '../../resources/webhooks/webhooks.schemas.js';
import { webhooksService } from '../../resources/webhooks/webhooks.service.js';
import { NotFound } from '../../lib/domain-errors.js';
import { DEFAULT_PASSWORD_POLICY } from '../../lib/password-policy.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, notice } from '../../pages/layout.js';
import { bodyValidator } from '../../plugins/validation.js';
import { secretOnce } from '../console-page.js';
import { dataTable, when } from '../console-page.js';
import { everyItem } from '../every-item.js';
import { buttonForm, formValue, inputControl, problemOf, refusalNotice, timestampOf } from '../form-controls.js';
import { refusedOr, type FormRefusal } from '../form-refusal.js';
import { ORGANIZATION_ADMINISTRATORS, type ConsoleRequest, type ConsoleSection } from '../sections.js';
import { bodyOfEndpointDraft, draftOfEndpoint, draftOfEndpointForm, endpointForm, type EndpointDraft } from './endpoint-form.js';
import { endpointHealth, HEALTH_HOURS, type EndpointHealth } from './endpoint-health.js';

const SECTION = '/:orgId/console/webhooks';
const ENDPOINT = `${SECTION}/:webhookId`;
/** Deliveries a page of the log shows. */
const PAGE = 50;
/** How much of a receiver's answer the log shows (the worker keeps its first 512 bytes). */
const RESPONSE_START = 160;

const validCreation = bodyValidator(CreateWebhook, DEFAULT_PASSWORD_POLICY);
const validUpdate = bodyValidator(UpdateWebhook, DEFAULT_PASSWORD_POLICY);

/** What a page says after a change, by the `done` of its address. */
const DONE: Record<string, string> = {
  saved: 'The endpoint is saved.',
  deleted: 'The endpoint is deleted, with its deliveries.',
  disabled: 'The endpoint is disabled: nothing is sent to it until it is enabled again; its deliveries wait.',
  enabled: 'The endpoint is enabled again: its pending deliveries resume.',
  'test-queued': 'A webhook.ping is queued: it shows in the deliveries below once attempted.',
  resent: 'The delivery is queued again, with the same webhook-id, and retried for another day.',
};

/** `count` things, in words: `1 event`, `2 events`. */
const counted = (count: number, thing: string) => `${count} ${thing}${count === 1 ? '' : 's'}`;

/** A share as a whole percentage. */
const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;

function successText(health: EndpointHealth): string {
  if (health.attempts === 0) return 'no attempt';
  return `${percent(health.succeeded, health.attempts)} of ${counted(health.attempts, 'attempt')}`;
}

function backlogText(health: EndpointHealth): Html {
  if (health.backlog === 0) return html`none`;
  return html`${health.backlog} pending, the oldest queued ${when(health.oldestPending)}`;
}

function stateOf(webhook: Webhook): Html {
  if (!webhook.disabled) return html`<span class="badge ok">active</span>`;
  return html`<span class="badge error">disabled</span>
    ${when(webhook.disabledDate)}${webhook.disabledReason ? html`: ${webhook.disabledReason}` : html``}`;
}

/** A delivery's last attempt, as the log shows it: the receiver's status or the error, how long, and the start of its answer. */
function lastAttempt(delivery: Delivery) {
  const attempt = delivery.attempts.at(-1);
  if (!attempt) return { answer: html`—`, duration: '', response: html`` };
  const answer =
    attempt.statusCode !== undefined
      ? html`<span class="badge ${attempt.statusCode < 300 ? 'ok' : 'error'}">${attempt.statusCode}</span>`
      : html`<span class="badge error">no answer</span> ${attempt.error ?? ''}`;
  const body = attempt.responseBody ?? '';
  const response = body ? html`<code>${body.length > RESPONSE_START ? `${body.slice(0, RESPONSE_START)}…` : body}</code>` : html``;
  return { answer, duration: `${attempt.durationMs} ms`, response };
}

/** The form of a refused endpoint: what was typed, and why. */
interface EndpointRefusal {
  draft: EndpointDraft;
  refusal: FormRefusal;
}

/** What the endpoint's page shows beside its state. */
interface EndpointShown {
  top?: Html;
  editing?: EndpointRefusal;
  /** The recovery's moment as typed, and its refusal. */
  recovering?: { since: string; refusal?: FormRefusal };
  query?: Record<string, unknown>;
}

/**
 * The organization's webhook endpoints, for organization administrators: made, changed, disabled and
 * deleted with their event types through the webhooks service the API uses; each one's health over
 * the last day (success rate, answer times, backlog, and why it is disabled), its delivery log, a
 * delivery sent again, a recovery since a moment, a test event, and a new signing secret shown once.
 */
export const webhooksSection: ConsoleSection = {
  id: 'webhooks',
  title: 'Webhooks',
  path: '/webhooks',
  allowed: ORGANIZATION_ADMINISTRATORS,
  routes(app, tools) {
    const webhooks = webhooksService(tools.db, tools.webhooks);
    const health = endpointHealth(tools.db);
    const base = (person: ConsoleRequest) => `${tools.base(person)}/webhooks`;
    const admitted = (request: FastifyRequest, reply: FastifyReply) => tools.consoleRequest(request, reply, webhooksSection);
    const webhookOf = (request: FastifyRequest, person: ConsoleRequest) =>
      webhooks.get(person.caller, (request.params as { webhookId: string }).webhookId);

    async function renderList(reply: FastifyReply, person: ConsoleRequest, top: Html, creating?: EndpointRefusal, statusCode = 200) {
      const list = await everyItem((paging) => webhooks.list(person.caller, {}, paging));
      const figures = await health.of(
        person.organization.id,
        list.map((webhook) => webhook.id),
      );
      const url = base(person);
      const body = html`${top}${creating ? refusalNotice(creating.refusal.message, creating.refusal.fieldErrors) : html``}
        <section class="card" aria-labelledby="endpoints-title">
          <h2 id="endpoints-title">Endpoints</h2>
          <p class="hint">
            Each endpoint receives the events of its types as signed POSTs, retried for a day until it answers 2xx; success and answer times are those
            of the last ${HEALTH_HOURS} hours.
          </p>
          ${dataTable('Endpoints', ['URL', 'Event types', 'Success', 'Answer time', 'Backlog', 'State'], list, (webhook) => {
            const figure = figures.get(webhook.id)!;
            return [
              html`<a href="${url}/${webhook.id}" id="endpoint-${webhook.id}">${webhook.url}</a
                >${webhook.description ? html`<br /><span class="hint">${webhook.description}</span>` : html``}`,
              webhook.events.length === 1 ? webhook.events[0]! : `${webhook.events.length} types`,
              successText(figure),
              figure.averageMs === null ? '' : `${figure.averageMs} ms on average, ${figure.maxMs} ms at most`,
              backlogText(figure),
              stateOf(webhook),
            ];
          })}
        </section>
        <section class="card" aria-labelledby="new-endpoint-title">
          <h2 id="new-endpoint-title">New endpoint</h2>
          ${endpointForm(person.context, creating?.draft ?? draftOfEndpoint(), {
            action: url,
            fieldErrors: creating?.refusal.fieldErrors ?? {},
            submit: 'Create the endpoint',
            prefix: 'new',
          })}
        </section>`;
      return tools.sendConsolePage(reply, person, webhooksSection, { title: 'Webhooks', body }, statusCode);
    }

    async function renderEndpoint(reply: FastifyReply, person: ConsoleRequest, webhook: Webhook, shown: EndpointShown = {}, statusCode = 200) {
      const query = shown.query ?? {};
      const offset = Number.isSafeInteger(Number(query.offset)) && Number(query.offset) > 0 ? Number(query.offset) : 0;
      const orgId = person.organization.id;
      const [deliveries, figures, p95] = await Promise.all([
        webhooks.deliveries(person.caller, webhook.id, {}, { limit: PAGE, offset }),
        health.of(orgId, [webhook.id]),
        health.p95(orgId, webhook.id),
      ]);
      const figure = figures.get(webhook.id)!;
      const { context } = person;
      const url = `${base(person)}/${webhook.id}`;
      const pageLink = (to: number, caption: string) => html`<a href="${url}?offset=${to}#deliveries-title">${caption}</a>`;
      const recovering = shown.recovering;
      const sinceProblem = problemOf(recovering?.refusal?.fieldErrors, 'since');
      const defaultSince = (webhook.disabledDate ?? new Date(Date.now() - 3_600_000).toISOString()).slice(0, 19);
      const body = html`<p><a href="${base(person)}">Back to the endpoints</a></p>
        ${shown.top ?? html``}
        <section class="card" aria-labelledby="health-title">
          <h2 id="health-title">Health over the last ${HEALTH_HOURS} hours</h2>
          <dl class="facts">
            <dt>URL</dt>
            <dd><code>${webhook.url}</code></dd>
            <dt>State</dt>
            <dd>${stateOf(webhook)}</dd>
            <dt>Success</dt>
            <dd>${successText(figure)}</dd>
            <dt>Answer time</dt>
            <dd>
              ${figure.averageMs === null ? '—' : `${figure.averageMs} ms on average, ${p95} ms for 95% of attempts, ${figure.maxMs} ms at most`}
            </dd>
            <dt>Backlog</dt>
            <dd>${backlogText(figure)}</dd>
            <dt>Event types</dt>
            <dd>${webhook.events.join(', ')}</dd>
          </dl>
          <div class="actions">
            ${buttonForm(context, `${url}/test`, 'Send a test event', '', { disabled: webhook.disabled })}
            ${buttonForm(context, `${url}/state`, webhook.disabled ? 'Enable' : 'Disable', 'the endpoint', {
              fields: { disabled: webhook.disabled ? 'false' : 'true' },
            })}
            ${buttonForm(context, `${url}/rotate`, 'New signing secret', '', {
              confirm: 'Give the endpoint a new signing secret? Receivers verifying with the current one refuse deliveries from then on.',
            })}
          </div>
        </section>
        <section class="card" aria-labelledby="deliveries-title">
          <h2 id="deliveries-title">Deliveries</h2>
          <p class="hint">Newest first, ${PAGE} a page, each with its last attempt. Deliveries are kept while pending, and for a while once done.</p>
          ${dataTable(
            'Deliveries',
            ['Queued', 'Event', 'Status', 'Attempts', 'Last answer', 'Duration', 'Start of the answer', 'Next attempt', ''],
            deliveries.slice(0, PAGE),
            (delivery) => {
              const last = lastAttempt(delivery);
              return [
                html`<span id="delivery-${delivery.id}">${when(delivery.createdDate)}</span>`,
                html`<code>${delivery.eventType}</code>`,
                html`<span class="badge ${delivery.status === 'succeeded' ? 'ok' : delivery.status === 'failed' ? 'error' : 'muted'}"
                  >${delivery.status}</span
                >`,
                String(delivery.attempts.length),
                last.answer,
                last.duration,
                last.response,
                delivery.nextAttemptDate ? when(delivery.nextAttemptDate.slice(0, 19) + 'Z') : '',
                buttonForm(context, `${url}/deliveries/${delivery.id}/resend`, 'Resend', `${delivery.eventType} of ${delivery.createdDate}`, {
                  disabled: webhook.disabled,
                }),
              ];
            },
            'No deliveries yet.',
          )}
          <nav class="pager" aria-label="Pages of deliveries">
            ${offset > 0 ? pageLink(Math.max(0, offset - PAGE), 'Newer deliveries') : html``}
            ${deliveries.length > PAGE ? pageLink(offset + PAGE, 'Older deliveries') : html``}
          </nav>
        </section>
        <section class="card" aria-labelledby="recover-title">
          <h2 id="recover-title">Recover missed events</h2>
          ${recovering?.refusal && !sinceProblem ? notice('error', recovering.refusal.message) : html``}
          <p>
            Queues again every event of its types since a moment that the endpoint has no pending or successful delivery of: those made while it was
            disabled, and those whose delivery failed for good. A disabled endpoint gets them once enabled.
          </p>
          <form method="post" action="${url}/recover" class="inline-fields">
            ${csrfField(context)}
            ${inputControl({
              id: 'recover-since',
              name: 'since',
              label: 'Since (UTC)',
              type: 'datetime-local',
              value: recovering?.since ?? defaultSince,
              problem: sinceProblem,
              attributes: html` required step="1"`,
            })}
            <div class="field"><button type="submit" class="secondary">Recover</button></div>
          </form>
        </section>
        <section class="card" aria-labelledby="edit-title">
          <h2 id="edit-title">Change the endpoint</h2>
          ${shown.editing ? refusalNotice(shown.editing.refusal.message, shown.editing.refusal.fieldErrors) : html``}
          ${endpointForm(context, shown.editing?.draft ?? draftOfEndpoint(webhook), {
            action: url,
            fieldErrors: shown.editing?.refusal.fieldErrors ?? {},
            submit: 'Save the endpoint',
            prefix: 'edit',
          })}
        </section>
        <section class="card" aria-labelledby="delete-title">
          <h2 id="delete-title">Delete the endpoint</h2>
          <p>Nothing more is sent to it, pending deliveries included; its delivery log goes with it.</p>
          ${buttonForm(context, `${url}/delete`, 'Delete the endpoint', '', { danger: true, confirm: `Delete the endpoint ${webhook.url}?` })}
        </section>`;
      return tools.sendConsolePage(reply, person, webhooksSection, { title: `Webhook endpoint: ${webhook.url}`, body }, statusCode);
    }

    /** The endpoint's page after a change, with what `done` says (and anything more the query carries). */
    const back = (person: ConsoleRequest, webhookId: string, done: string, more: Record<string, string> = {}) =>
      `${base(person)}/${webhookId}?${new URLSearchParams({ done, ...more }).toString()}`;

    /** What the endpoint's page says after a change, by its query. */
    function topOf(query: Record<string, unknown>): Html {
      const done = String(query.done);
      if (done === 'recovered') {
        const queued = Number(query.queued);
        return notice(
          'ok',
          `${counted(queued, 'event')} since ${String(query.since)} ${queued === 1 ? 'is' : 'are'} queued again, in the order they were made.`,
        );
      }
      if (done === 'enabled' && Number(query.missed) > 0) {
        return notice(
          'ok',
          `${DONE.enabled} ${counted(Number(query.missed), 'event')} of its types made while it was disabled, since ${String(query.since)}, had no delivery queued: recover them below.`,
        );
      }
      return notice('ok', DONE[done]);
    }

    app.get(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      return renderList(reply, person, notice('ok', DONE[String((request.query as Record<string, unknown>).done)]));
    });

    app.post(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const draft = draftOfEndpointForm(person.form);
      const body = bodyOfEndpointDraft(draft, false);
      const outcome = await refusedOr(async () => {
        validCreation(body);
        return webhooks.create(person.caller, body as CreateWebhook);
      });
      if (outcome.refusal) return renderList(reply, person, html``, { draft, refusal: outcome.refusal }, outcome.refusal.statusCode);
      const created = outcome.value;
      request.log.info({ orgId: person.organization.id, webhookId: created.id }, 'webhook endpoint created in the console');
      const made = secretOnce(
        `The endpoint is made. Receivers verify the webhook-signature header of each delivery with its signing secret:`,
        created.secret!,
        'the server keeps it to sign deliveries',
      );
      return renderEndpoint(reply, person, created, { top: made }, 201);
    });

    app.get(ENDPOINT, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const webhook = await webhookOf(request, person);
      const query = request.query as Record<string, unknown>;
      return renderEndpoint(reply, person, webhook, {
        top: topOf(query),
        query,
        ...(typeof query.since === 'string' ? { recovering: { since: query.since.slice(0, 19) } } : {}),
      });
    });

    app.post(ENDPOINT, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const webhook = await webhookOf(request, person);
      const draft = draftOfEndpointForm(person.form);
      const body = bodyOfEndpointDraft(draft, true);
      const outcome = await refusedOr(async () => {
        validUpdate(body);
        await webhooks.update(person.caller, webhook.id, body);
      });
      if (outcome.refusal)
        return renderEndpoint(reply, person, webhook, { editing: { draft, refusal: outcome.refusal } }, outcome.refusal.statusCode);
      return reply.redirect(back(person, webhook.id, 'saved'), 303);
    });

    app.post(`${ENDPOINT}/state`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const webhook = await webhookOf(request, person);
      const disabled = formValue(person.form, 'disabled') !== 'false';
      const reenabled = await webhooks.update(person.caller, webhook.id, { disabled });
      if (!reenabled) return reply.redirect(back(person, webhook.id, disabled ? 'disabled' : 'enabled'), 303);
      return reply.redirect(back(person, webhook.id, 'enabled', { missed: String(reenabled.missedEvents), since: reenabled.disabledDate }), 303);
    });

    app.post(`${ENDPOINT}/test`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const webhook = await webhookOf(request, person);
      const outcome = await refusedOr(() => webhooks.test(person.caller, webhook.id));
      if (outcome.refusal)
        return renderEndpoint(reply, person, webhook, { top: notice('error', outcome.refusal.message) }, outcome.refusal.statusCode);
      return reply.redirect(back(person, webhook.id, 'test-queued'), 303);
    });

    app.post(`${ENDPOINT}/recover`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const webhook = await webhookOf(request, person);
      const since = formValue(person.form, 'since');
      const outcome = await refusedOr(() => webhooks.recover(person.caller, webhook.id, { since: timestampOf(since) }));
      if (outcome.refusal)
        return renderEndpoint(reply, person, webhook, { recovering: { since, refusal: outcome.refusal } }, outcome.refusal.statusCode);
      return reply.redirect(back(person, webhook.id, 'recovered', { queued: String(outcome.value.queued), since: outcome.value.since }), 303);
    });

    app.post(`${ENDPOINT}/rotate`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const webhook = await webhookOf(request, person);
      const rotated = await webhooks.rotateSecret(person.caller, webhook.id);
      request.log.info({ orgId: person.organization.id, webhookId: webhook.id }, 'webhook signing secret replaced in the console');
      const top = secretOnce(
        'The endpoint has a new signing secret; deliveries are signed with it from now on, and the former one no longer verifies them:',
        rotated.secret,
        'the server keeps it to sign deliveries',
      );
      return renderEndpoint(reply, person, rotated, { top });
    });

    app.post(`${ENDPOINT}/delete`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const webhook = await webhookOf(request, person);
      await webhooks.delete(person.caller, webhook.id);
      return reply.redirect(`${base(person)}?done=deleted`, 303);
    });

    app.post(`${ENDPOINT}/deliveries/:deliveryId/resend`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      const webhook = await webhookOf(request, person);
      const { deliveryId } = request.params as { deliveryId: string };
      const outcome = await refusedOr(() => webhooks.resend(person.caller, webhook.id, deliveryId));
      if (outcome.refusal?.statusCode === 404) throw new NotFound(); // another endpoint's delivery, or none: the 404 page
      if (outcome.refusal)
        return renderEndpoint(reply, person, webhook, { top: notice('error', outcome.refusal.message) }, outcome.refusal.statusCode);
      return reply.redirect(`${back(person, webhook.id, 'resent')}#delivery-${deliveryId}`, 303);
    });
  },
};
