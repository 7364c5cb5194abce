import type { FastifyReply } from 'fastify';
import { EVENT_TYPES, resourceIdOf, type EventPayload, type EventType } from '../../events/event-types.js';
import { ACTOR_TYPES, type Actor, type ActorType } from '../../lib/actors.js';
import type { FieldErrors } from '../../lib/domain-errors.js';
import { isId } from '../../lib/ids.js';
import { toTimestamp } from '../../lib/time.js';
import { html, type Html } from '../../pages/html.js';
import { eventsService, type TrailFilters } from '../../resources/events/events.service.js';
import { when } from '../console-page.js';
import { formValue, inputControl, refusalNotice, selectControl } from '../form-controls.js';
import { ORGANIZATION_ADMINISTRATORS, type ConsoleRequest, type ConsoleSection } from '../sections.js';

const SECTION = '/:orgId/console/audit';
const EVENTS_PER_PAGE = 50;
/** Longer than any id or name a filter can match (an email is at most 254 characters). */
const LONGEST_FILTER = 320;

/** Each kind of actor, in words. */
const ACTOR_WORDS: Record<ActorType, string> = {
  token: 'API token',
  oauthClient: 'OAuth client',
  scim: 'SCIM',
  person: 'Person',
  import: 'Import',
  commandLine: 'Command line',
  operator: "The server's operator",
  server: 'The server',
};

/**
 * Properties never shown, at any depth, should an event ever carry one: no event holds a password, its
 * hash or a secret (a user's representation has none), and the page makes sure of it.
 */
const NEVER_SHOWN = new Set(['password', 'passwordHash', 'password_hash', 'secret', 'clientSecret', 'token', 'accessToken']);

/** The filters as typed, for the form to show them again. */
type Typed = Record<'actorType' | 'actor' | 'type' | 'resource' | 'from' | 'to', string>;

/** A day typed as `yyyy-mm-dd`, as the timestamp of its start; undefined for anything else. */
function dayStart(day: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== day ? undefined : toTimestamp(date);
}

/** The filters of the query, or the problems of those that cannot be. */
function filtersOf(typed: Typed): { filters: TrailFilters } | { problems: FieldErrors } {
  const problems: FieldErrors = {};
  const filters: TrailFilters = {};
  if (typed.actorType) {
    if ((ACTOR_TYPES as readonly string[]).includes(typed.actorType)) filters.actorType = typed.actorType as ActorType;
    else problems.actorType = 'must be one of the kinds listed';
  }
  if (typed.type) {
    if ((EVENT_TYPES as readonly string[]).includes(typed.type)) filters.type = typed.type as EventType;
    else problems.type = 'must be one of the event types listed';
  }
  for (const [name, key] of [
    ['actor', 'actor'],
    ['resource', 'resourceId'],
  ] as const) {
    if (typed[name].length > LONGEST_FILTER) problems[name] = `must be at most ${LONGEST_FILTER} characters`;
    else if (typed[name]) filters[key] = typed[name];
  }
  if (typed.from) {
    const since = dayStart(typed.from);
    if (since) filters.since = since;
    else problems.from = 'must be a date (yyyy-mm-dd)';
  }
  if (typed.to) {
    const start = dayStart(typed.to);
    // The day named is included: up to the start of the next.
    if (start) filters.until = toTimestamp(new Date(Date.parse(start) + 86_400_000));
    else problems.to = 'must be a date (yyyy-mm-dd)';
  }
  if (filters.since && filters.until && filters.since >= filters.until) problems.to = 'must not be before the first day';
  return Object.keys(problems).length > 0 ? { problems } : { filters };
}

/** A value of an event as text: strings as they are, anything else as JSON; secrets never. */
function shown(value: unknown): Html {
  if (value === undefined || value === null) return html`<span class="hint">none</span>`;
  if (typeof value === 'string') return html`${value}`;
  return html`<code>${JSON.stringify(withoutSecrets(value))}</code>`;
}

function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).flatMap(([key, inner]) => (NEVER_SHOWN.has(key) ? [] : [[key, withoutSecrets(inner)]])));
}

/**
 * What an event changed, property by property: for an update the properties it names as previous,
 * before and after; for a creation what was made, for a deletion what was removed.
 */
function changesOf(event: EventPayload): { property: string; before: unknown; after: unknown }[] {
  const data = event.data as Record<string, unknown>;
  const previous = event.previousAttributes;
  const deleted = event.type.endsWith('.deleted');
  const properties = previous ? Object.keys(previous) : Object.keys(data);
  return properties
    .filter((property) => !NEVER_SHOWN.has(property))
    .map((property) =>
      previous
        ? { property, before: previous[property], after: data[property] }
        : deleted
          ? { property, before: data[property], after: undefined }
          : { property, before: undefined, after: data[property] },
    );
}

/** What the event changed, in a disclosure (opened from the keyboard too). */
function changesDetails(event: EventPayload): Html {
  const changes = changesOf(event);
  return html`<details>
    <summary>
      ${changes.length === 1 ? '1 property' : `${changes.length} properties`}<span class="visually-hidden"> of event ${event.id}</span>
    </summary>
    <dl class="facts">
      ${changes.map(
        ({ property, before, after }) =>
          html`<dt>${property}</dt>
            <dd>
              ${event.previousAttributes ? html`${shown(before)} → ${shown(after)}` : shown(event.type.endsWith('.deleted') ? before : after)}
            </dd>`,
      )}
    </dl>
  </details>`;
}

/** Who made the change: the kind of actor, its name, and its id (what the filter takes too). */
function madeBy(actor: Actor | undefined): Html {
  if (!actor) return html`Made by <span class="hint">no one recorded (an event older than the audit trail)</span>`;
  const id = actor.id && actor.id !== actor.name ? html` <span class="hint">${actor.id}</span>` : html``;
  return html`Made by ${ACTOR_WORDS[actor.type]}${actor.name ? html` <strong>${actor.name}</strong>` : html``}${id}`;
}

/** One event of the trail: what happened to which resource and when, who did it, and what changed. */
function trailItem(event: EventPayload): Html {
  return html`<li>
    <p><code>${event.type}</code> <code>${resourceIdOf(event)}</code> ${when(event.createdDate)}</p>
    <p>${madeBy(event.actor)}</p>
    ${changesDetails(event)}
  </li>`;
}

/**
 * The audit trail: who changed what in the organization, from the console, a token, an OAuth client,
 * SCIM, an import or the command line, as the change stream recorded it with each event (newest first,
 * for the retention period of the events), with filters and each event's changes.
 */
export const auditSection: ConsoleSection = {
  id: 'audit',
  title: 'Audit trail',
  path: '/audit',
  allowed: ORGANIZATION_ADMINISTRATORS,
  routes(app, tools) {
    const events = eventsService(tools.db);

    function filterForm(person: ConsoleRequest, typed: Typed, problems: FieldErrors): Html {
      return html`<form method="get" action="${tools.base(person)}/audit" class="inline-fields" role="search" aria-label="Filter the audit trail">
        ${selectControl({
          id: 'audit-actor-type',
          name: 'actorType',
          label: 'Made by',
          value: typed.actorType,
          problem: problems.actorType,
          choices: [['', 'Anyone'], ...ACTOR_TYPES.map((type) => [type, ACTOR_WORDS[type]] as const)],
        })}
        ${inputControl({
          id: 'audit-actor',
          name: 'actor',
          label: 'Actor (id, name or email)',
          value: typed.actor,
          problem: problems.actor,
          attributes: html`maxlength="${LONGEST_FILTER}"`,
        })}
        ${selectControl({
          id: 'audit-type',
          name: 'type',
          label: 'Event type',
          value: typed.type,
          problem: problems.type,
          choices: [['', 'Any'], ...EVENT_TYPES.map((type) => [type, type] as const)],
        })}
        ${inputControl({
          id: 'audit-resource',
          name: 'resource',
          label: 'Resource id',
          value: typed.resource,
          problem: problems.resource,
          attributes: html`maxlength="${LONGEST_FILTER}"`,
        })}
        ${inputControl({ id: 'audit-from', name: 'from', label: 'From (day)', type: 'date', value: typed.from, problem: problems.from })}
        ${inputControl({ id: 'audit-to', name: 'to', label: 'To (day, included)', type: 'date', value: typed.to, problem: problems.to })}
        <div class="field"><button type="submit" class="secondary">Search</button></div>
      </form>`;
    }

    async function trailPage(reply: FastifyReply, person: ConsoleRequest, typed: Typed, before: string | undefined) {
      const parsed = filtersOf(typed);
      const problems = 'problems' in parsed ? parsed.problems : {};
      const listed = 'filters' in parsed ? await events.trail(person.caller, parsed.filters, { limit: EVENTS_PER_PAGE + 1, before }) : [];
      const shownEvents = listed.slice(0, EVENTS_PER_PAGE);
      const older =
        listed.length > EVENTS_PER_PAGE
          ? `${tools.base(person)}/audit?${new URLSearchParams({ ...typed, before: shownEvents.at(-1)!.id }).toString()}`
          : undefined;
      const body = html`${'problems' in parsed ? refusalNotice('Some filters cannot be used: correct them and search again.', problems) : html``}
        <section class="card" aria-labelledby="audit-title">
          <h2 id="audit-title">Changes, newest first</h2>
          <p class="hint">
            Every change of people, their values and agreements, userfields, offerings and registrations, with who made it. Events are kept for the
            retention period (30 days unless the server says otherwise). Passwords and secrets are never recorded.
          </p>
          ${filterForm(person, typed, problems)}
          ${
            shownEvents.length === 0
              ? html`<p>${before === undefined ? 'No change matches.' : 'No older change matches.'}</p>`
              : html`<ul class="plain" aria-label="Changes of the organization, newest first">
                  ${shownEvents.map(trailItem)}
                </ul>`
          }
          ${older ? html`<p class="pager"><a href="${older}">Older changes</a></p>` : html``}
        </section>`;
      return tools.sendConsolePage(reply, person, auditSection, { title: 'Audit trail', body }, 'problems' in parsed ? 400 : 200);
    }

    app.get(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, auditSection);
      if (!person) return reply;
      const query = request.query as Record<string, string | string[] | undefined>;
      const typed: Typed = {
        actorType: formValue(query, 'actorType').trim(),
        actor: formValue(query, 'actor').trim(),
        type: formValue(query, 'type').trim(),
        resource: formValue(query, 'resource').trim(),
        from: formValue(query, 'from').trim(),
        to: formValue(query, 'to').trim(),
      };
      const before = formValue(query, 'before');
      // An id of another form names no event: the list starts over.
      return trailPage(reply, person, typed, isId(before) ? before : undefined);
    });
  },
};
