import type { FieldErrors } from '../../lib/domain-errors.js';
import { isId } from '../../lib/ids.js';
import { html, type Html } from '../../pages/html.js';
import type { KeysetPaging, UserKey } from '../../resources/users/users.repository.js';
import { ACCOUNT_TYPES, type User } from '../../resources/users/users.schemas.js';
import { dataTable, when } from '../console-page.js';
import { inputControl, problemOf, selectControl } from '../form-controls.js';
import { ACCOUNT_KIND_NAMES } from './person-form.js';

/** People a page of the list. */
export const PEOPLE_PAGE = 50;

/** The filters of GET /users, as the list's search form sends them (its address holds them). */
const FILTERS = [
  'email',
  'firstName',
  'lastName',
  'username',
  'tags',
  'active',
  'accountType',
  'createdDate',
  'updatedDate',
  'lastLoginDate',
] as const;
export type PeopleFilters = Record<(typeof FILTERS)[number], string>;

export function filtersOfQuery(query: Record<string, unknown>): PeopleFilters {
  const text = (name: string) => (typeof query[name] === 'string' ? query[name].trim() : '');
  return Object.fromEntries(FILTERS.map((name) => [name, text(name)])) as PeopleFilters;
}

/** The query of GET /users for the filters given (an empty box is no filter), for its schema to check. */
export function userQueryOf(filters: PeopleFilters): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const name of FILTERS) if (filters[name] !== '') query[name] = filters[name];
  if (filters.active === 'true' || filters.active === 'false') query.active = filters.active === 'true';
  return query;
}

/** A person's place in the list, as an address carries it: `<createdDate>_<id>`. */
const keyText = (user: User) => `${user.createdDate}_${user.id}`;

function keyOf(text: unknown): UserKey | undefined {
  const match = typeof text === 'string' ? /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)_(\w+)$/.exec(text) : null;
  return match && isId(match[2]!) ? { createdDate: match[1]!, id: match[2]! } : undefined;
}

/** Which page the address asks for: after or before a person's place, or the first; undefined for a place the list never gave. */
export function keysetOf(query: Record<string, unknown>): KeysetPaging | undefined {
  if (query.after !== undefined && query.before !== undefined) return undefined;
  if (query.after === undefined && query.before === undefined) return { limit: PEOPLE_PAGE };
  const after = keyOf(query.after);
  const before = keyOf(query.before);
  if (!after && !before) return undefined;
  return { limit: PEOPLE_PAGE, ...(after ? { after } : {}), ...(before ? { before } : {}) };
}

/** The name a person goes by in the console: their names, else their email. */
export const nameOf = (user: User) => [user.firstName, user.lastName].filter(Boolean).join(' ') || user.email;

/** The search form: each filter of GET /users, with the problem the API would give beside it. */
export function searchForm(url: string, filters: PeopleFilters, fieldErrors: FieldErrors): Html {
  const box = (name: keyof PeopleFilters, label: string, hint?: string, type: 'text' | 'email' = 'text') =>
    inputControl({
      id: `filter-${name}`,
      name,
      label,
      value: filters[name],
      problem: problemOf(fieldErrors, name),
      type,
      attributes: html` maxlength="255"`,
      ...(hint ? { hint } : {}),
    });
  // Fewer than three letters are looked for at the start only: an index finds those as fast as longer ones (users.service.ts).
  const nameHint = 'Case aside. One or two letters: names starting with them.';
  const dateHint = '2026, 2026-03, 2026-03-01, or a range such as 2026-01/2026-03 (either end may be ..).';
  return html`<form method="get" action="${url}" role="search" aria-label="People">
    <div class="inline-fields">
      ${box('email', 'Email', 'The whole address; case aside.', 'email')} ${box('firstName', 'First name contains', nameHint)}
      ${box('lastName', 'Last name contains', nameHint)} ${box('username', 'Username contains', nameHint)}
    </div>
    <div class="inline-fields">
      ${box('tags', 'Tags', 'People with every tag given.')}
      ${selectControl({
        id: 'filter-active',
        name: 'active',
        label: 'Status',
        value: filters.active,
        problem: problemOf(fieldErrors, 'active'),
        choices: [
          ['', 'Any'],
          ['true', 'Active'],
          ['false', 'Deactivated'],
        ],
      })}
      ${selectControl({
        id: 'filter-accountType',
        name: 'accountType',
        label: 'Kind of account',
        value: filters.accountType,
        problem: problemOf(fieldErrors, 'accountType'),
        choices: [['', 'Any'], ...ACCOUNT_TYPES.map((kind) => [kind, ACCOUNT_KIND_NAMES[kind]] as const)],
      })}
    </div>
    <details ${filters.createdDate || filters.updatedDate || filters.lastLoginDate ? html` open` : html``}>
      <summary>Dates (UTC)</summary>
      <p class="hint">${dateHint}</p>
      <div class="inline-fields">${box('createdDate', 'Created')} ${box('updatedDate', 'Changed')} ${box('lastLoginDate', 'Last sign-in')}</div>
    </details>
    <div class="actions">
      <button type="submit">Search</button>
      <a class="button secondary" href="${url}">Clear</a>
    </div>
  </form>`;
}

/** A page of people, with links to the newer and older pages beside it (the filters kept). */
export function peopleTable(url: string, filters: PeopleFilters, page: { users: User[]; more: boolean }, paging: KeysetPaging): Html {
  const { users, more } = page;
  const kept = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== ''));
  const link = (place: Record<string, string>, caption: string, rel: string) =>
    html`<a rel="${rel}" href="${url}?${new URLSearchParams({ ...kept, ...place }).toString()}">${caption}</a>`;
  // Read backwards, `more` tells of newer people; forwards, of older ones. A page beside a place has people on that place's side.
  const newer = paging.before ? more : paging.after !== undefined;
  const older = paging.before ? true : more;
  const filtered = Object.keys(kept).length > 0;
  return html`${dataTable(
      'People',
      ['Name', 'Email', 'Kind of account', 'Status', 'Tags', 'Created', 'Last sign-in'],
      users,
      (user) => [
        html`<a href="${url}/${user.id}">${nameOf(user)}</a>`,
        user.email,
        ACCOUNT_KIND_NAMES[user.accountType ?? 'learner'],
        user.active ? html`<span class="badge ok">active</span>` : html`<span class="badge error">deactivated</span>`,
        (user.tags ?? []).join(', '),
        when(user.createdDate),
        when(user.lastLoginDate),
      ],
      filtered ? 'Nobody matches these filters.' : 'Nobody yet.',
    )}
    <nav class="pager" aria-label="Pages of people">
      ${newer ? link({}, 'Newest', 'first') : html``}
      ${newer && users.length > 0 ? link({ before: keyText(users[0]!) }, 'Newer people', 'prev') : html``}
      ${older && users.length > 0 ? link({ after: keyText(users.at(-1)!) }, 'Older people', 'next') : html``}
    </nav>`;
}
