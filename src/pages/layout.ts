import { STYLESHEET_PATH } from './assets.js';
import { html, type Html } from './html.js';
import type { Messages } from './locales/messages.js';

/** What every page of a request knows: its language, the organization, the person signed in, the form token. */
export interface PageContext {
  t: Messages;
  language: string;
  organization?: { id: string; name: string };
  /** The person signed in, as the header names them; a page for nobody in particular has none. */
  person?: { name: string };
  /** The token every form of the page carries against cross-site requests. */
  csrf: string;
}

export interface PageContent {
  title: string;
  body: Html;
  /** The console's tables want the room. */
  wide?: boolean;
  /** Scripts of this origin the page loads (the console's); the pages of people load none. */
  scripts?: readonly string[];
}

/** The name a person is shown by: their names, else their email. */
export function displayName(person: { first_name?: string | null; last_name?: string | null; email: string }): string {
  return [person.first_name, person.last_name].filter(Boolean).join(' ') || person.email;
}

/** The hidden field of the form token. */
export function csrfField(context: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${context.csrf}" />`;
}

/** A page: a landmark for each part, the language set, the organization named, and a way out for the person signed in. */
export function page(context: PageContext, content: PageContent): Html {
  const { t, organization, person } = context;
  const base = organization ? `/o/${organization.id}` : '';
  return html`<!doctype html>
    <html lang="${context.language}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${content.title}${organization ? ` · ${organization.name}` : ''}</title>
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
        ${(content.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <a class="skip" href="#content">${content.title}</a>
        <header class="site">
          <span class="org">${organization?.name ?? ''}</span>
          ${
            person && organization
              ? html`<nav aria-label="${t.account.title}"><a href="${base}/account">${t.account.signedInAs(person.name)}</a></nav>`
              : html``
          }
        </header>
        <main id="content" ${content.wide ? html` class="wide"` : html``}>
          <h1>${content.title}</h1>
          ${content.body}
        </main>
      </body>
    </html> `;
}

/** A notice above a form: an error, or a change done. */
export function notice(kind: 'error' | 'ok', text: string | undefined): Html {
  if (!text) return html``;
  return kind === 'error' ? html`<div class="notice error" role="alert">${text}</div>` : html`<div class="notice ok" role="status">${text}</div>`;
}
