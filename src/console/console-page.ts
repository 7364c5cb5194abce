import { CONSOLE_SCRIPT_PATH } from './assets.js';
import { html, type Html } from '../pages/html.js';
import type { PageContext } from '../pages/layout.js';
import { page } from '../pages/layout.js';
import type { ConsoleContent, ConsoleSection } from './sections.js';

/** A page of the console: the sections the person may open, as a navigation landmark, beside the section's content. */
export function consolePage(
  context: PageContext,
  sections: readonly ConsoleSection[],
  current: ConsoleSection | undefined,
  content: ConsoleContent,
): Html {
  const base = `/o/${context.organization!.id}/console`;
  const nav = html`<nav class="console-nav" aria-label="Console">
    <ul>
      ${sections.map(
        (section) =>
          html`<li><a href="${base}${section.path}" ${section === current ? html` aria-current="page"` : html``}>${section.title}</a></li>`,
      )}
    </ul>
  </nav>`;
  return page(context, {
    title: content.title,
    wide: true,
    // In this order: the console's script draws the charts with the library loaded before it (both deferred).
    scripts: [...(content.scripts ?? []), CONSOLE_SCRIPT_PATH],
    body: html`<div class="console">
      ${nav}
      <div class="console-main">${content.body}</div>
    </div>`,
  });
}

/** A table of rows: a caption for screen readers (the section's heading says it to the eye), headings, and each row's cells. */
export function dataTable<T>(
  caption: string,
  headings: readonly string[],
  rows: readonly T[],
  cells: (row: T) => readonly (Html | string | number)[],
  empty = 'None yet.',
): Html {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}">
    <table>
      <caption class="visually-hidden">
        ${caption}
      </caption>
      <thead>
        <tr>
          ${headings.map((heading) => html`<th scope="col">${heading}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${
          rows.length === 0
            ? html`<tr>
                <td colspan="${headings.length}">${empty}</td>
              </tr>`
            : rows.map(
                (row) =>
                  html`<tr>
                    ${cells(row).map((cell) => html`<td>${cell}</td>`)}
                  </tr>`,
              )
        }
      </tbody>
    </table>
  </div>`;
}

/** A timestamp as people read it (`2026-11-29 07:41 UTC`), in a `<time>` that keeps it exact. */
export function when(timestamp: string | undefined | null): Html {
  if (!timestamp) return html`—`;
  return html`<time datetime="${timestamp}">${timestamp.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** A secret shown this once, as text to select, with a button that copies it; `kept` says what the server keeps of it. */
export function secretOnce(what: string, secret: string, kept = 'the server keeps only its hash'): Html {
  return html`<div class="notice ok" role="status">
    <p><strong>${what}</strong> Copy it now: it is shown this once, and ${kept}.</p>
    <code class="secret" id="secret">${secret}</code>
    <button type="button" class="secondary" data-copy="#secret" hidden>Copy</button>
  </div>`;
}
