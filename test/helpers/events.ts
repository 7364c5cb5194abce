import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import type { Harness } from './harness.js';

/** Every event of the organization after `after`, read page by page through `next`. */
export async function eventsAfter(h: Harness, after?: string, token?: string): Promise<any[]> {
  const events: any[] = [];
  let query: Record<string, string> = { limit: '7', ...(after ? { after } : {}) };
  for (;;) {
    const response = await h.get('events', { query, ...(token ? { token } : {}) });
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json();
    events.push(...page.results);
    if (!page.next) return events;
    query = Object.fromEntries(new URL(page.next).searchParams);
  }
}

/** The id of the organization's newest event (a cursor for `eventsAfter`); undefined while it has none. */
export async function latestEventId(h: Harness, token?: string): Promise<string | undefined> {
  return (await eventsAfter(h, undefined, token)).at(-1)?.id;
}

/** In an expected event: the property must be there, whatever its value (a date the test cannot know). */
export const PRESENT = Symbol('present');

/** An event a change must emit: its type, properties its `data` must have, and for an update the previous values. */
export interface ExpectedEvent {
  type: string;
  /** Properties of `data` with their values (PRESENT: any value); they name the resource the event is about. */
  data: Record<string, unknown>;
  /** Properties of `previousAttributes` with their old values (null: absent before). */
  previous?: Record<string, unknown>;
}

/** Types whose events report a change of an existing resource, so carry previousAttributes. */
export const isUpdateType = (type: string) => type.endsWith('.updated') || type === 'registration.graded' || type === 'registration.ejected';

/** What `actual` lacks of `expected`: one line per property, empty when it has them all. */
function missing(actual: Record<string, unknown> | undefined, expected: Record<string, unknown>): string[] {
  return Object.entries(expected).flatMap(([key, value]) => {
    const found = actual?.[key];
    if (value === PRESENT ? found !== undefined : isDeepStrictEqual(found, value)) return [];
    return [`${key} is ${JSON.stringify(found)}, not ${value === PRESENT ? 'present' : JSON.stringify(value)}`];
  });
}

const summary = (event: any) => `${event.type} ${JSON.stringify(event.data)}`.slice(0, 300);

/**
 * How `events` differ from `expected`: each expected event must be there exactly once (its type and
 * data), with the previous values given; any other event, or one of another organization, is a problem.
 */
export function eventProblems(events: any[], expected: readonly ExpectedEvent[], orgId: string): string[] {
  const problems: string[] = [];
  const matched = new Set<any>();
  for (const want of expected) {
    const name = `${want.type} ${JSON.stringify(want.data, (_, value) => (value === PRESENT ? '<any>' : value))}`;
    const sameType = events.filter((event) => event.type === want.type);
    const found = sameType.filter((event) => missing(event.data, want.data).length === 0);
    if (found.length !== 1) {
      // The nearest event of the type says what is wrong with it.
      const nearest = sameType.map((event) => missing(event.data, want.data)).sort((a, b) => a.length - b.length)[0];
      problems.push(`expected one ${name}, got ${found.length}${found.length === 0 && nearest ? ` (nearest: data.${nearest.join('; data.')})` : ''}`);
      continue;
    }
    const [event] = found;
    matched.add(event);
    if (want.previous) problems.push(...missing(event.previousAttributes, want.previous).map((line) => `${want.type}: previousAttributes.${line}`));
  }
  for (const event of events) {
    if (!matched.has(event)) problems.push(`unexpected ${summary(event)}`);
    if (event.organizationId !== orgId) problems.push(`${event.type} of organization ${event.organizationId}`);
  }
  return problems;
}
