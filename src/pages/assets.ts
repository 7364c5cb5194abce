import { hash } from 'node:crypto';

/**
 * The pages' one stylesheet, served from this origin (the pages' CSP allows no inline style). Its
 * address carries a hash of its text, so a browser keeps it for good and fetches a new one when it
 * changes. Colours meet WCAG AA contrast on their backgrounds; focus is always visible.
 */
const STYLESHEET = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5561; --line: #c9d1d9; --accent: #0b5cad; --accent-ink: #ffffff;
  --error: #a4161a; --error-bg: #fdecec; --ok: #17603a; --ok-bg: #e7f5ec; --paper: #ffffff; --ground: #f3f5f7; }
* { box-sizing: border-box; }
html { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--ground); }
body { margin: 0; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px; }
.skip, .visually-hidden { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
.skip:focus { left: 1rem; top: 1rem; background: var(--paper); padding: .5rem; z-index: 1; }
header.site { background: var(--paper); border-bottom: 1px solid var(--line); padding: .75rem 1rem; display: flex; flex-wrap: wrap;
  gap: .5rem 1rem; align-items: center; justify-content: space-between; }
header.site .org { font-weight: 600; }
main { max-width: 40rem; margin: 1.5rem auto; padding: 0 1rem; }
main.wide { max-width: 64rem; }
.card { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 1.25rem 1.5rem; margin-bottom: 1.5rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 1rem; }
h2 { font-size: 1.25rem; margin: 0 0 .75rem; }
p.hint, .hint { color: var(--muted); font-size: .9rem; margin: .25rem 0 .5rem; }
form .field { margin-bottom: 1rem; }
label, legend { display: block; font-weight: 600; margin-bottom: .25rem; }
fieldset { border: 0; padding: 0; margin: 0 0 1rem; }
fieldset label { font-weight: 400; display: flex; gap: .5rem; align-items: center; margin: .25rem 0; }
input[type=text], input[type=email], input[type=password], input[type=number], input[type=date], select, textarea {
  width: 100%; max-width: 28rem; padding: .55rem .6rem; border: 1px solid #6e7781; border-radius: 6px; font: inherit; background: var(--paper); color: var(--ink); }
input[aria-invalid=true], select[aria-invalid=true] { border-color: var(--error); }
input[type=checkbox], input[type=radio] { width: 1.1rem; height: 1.1rem; }
button, .button { display: inline-block; font: inherit; font-weight: 600; padding: .55rem 1.1rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-ink); cursor: pointer; text-decoration: none; }
button.secondary, .button.secondary { background: var(--paper); color: var(--accent); }
button.danger { background: var(--paper); color: var(--error); border-color: var(--error); }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin-top: 1rem; }
.notice { border-radius: 6px; padding: .75rem 1rem; margin-bottom: 1rem; border: 1px solid; }
.notice.error { color: var(--error); background: var(--error-bg); border-color: var(--error); }
.notice.ok { color: var(--ok); background: var(--ok-bg); border-color: var(--ok); }
.field-error { color: var(--error); font-size: .9rem; margin: .25rem 0 0; }
.required { color: var(--error); font-weight: 400; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0 0 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
.agreement-text { white-space: pre-wrap; max-height: 14rem; overflow: auto; border: 1px solid var(--line); border-radius: 6px; padding: .75rem; background: var(--ground); }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain li { padding: .35rem 0; border-bottom: 1px solid var(--line); }
.console { display: grid; grid-template-columns: 13rem 1fr; gap: 1.5rem; align-items: start; }
.console-nav ul { list-style: none; margin: 0; padding: 0; background: var(--paper); border: 1px solid var(--line); border-radius: 8px; }
.console-nav li a { display: block; padding: .5rem .9rem; text-decoration: none; border-bottom: 1px solid var(--line); }
.console-nav li:last-child a { border-bottom: 0; }
.console-nav a[aria-current=page] { font-weight: 700; background: var(--ground); color: var(--ink); border-left: 4px solid var(--accent); }
.console-main { min-width: 0; }
.table-wrap { overflow-x: auto; margin-bottom: 1rem; }
table { border-collapse: collapse; width: 100%; background: var(--paper); }
caption { text-align: left; font-weight: 600; padding: .25rem 0 .5rem; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; background: var(--ground); }
td form { display: inline; }
td .actions { margin-top: 0; }
code, .secret { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
.secret { display: block; word-break: break-all; padding: .6rem .7rem; background: var(--ground); border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; }
.inline-fields { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
.inline-fields .field { margin-bottom: 0; }
.chart { position: relative; height: 18rem; margin-bottom: 1rem; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: .85rem; border: 1px solid currentColor; }
.badge.ok { color: var(--ok); } .badge.error { color: var(--error); } .badge.muted { color: var(--muted); }
.pager { display: flex; gap: 1rem; align-items: center; margin: .5rem 0 1rem; }
.preview-frame { border: 2px dashed var(--line); border-radius: 8px; padding: 1rem; margin-top: .5rem; }
.option-row { margin-bottom: .5rem; }
button:disabled { opacity: .45; cursor: not-allowed; }
.dates time { white-space: nowrap; }
details summary { cursor: pointer; color: var(--accent); font-weight: 600; padding: .25rem 0; }
form.compact input { max-width: 12rem; }
svg.swatch { vertical-align: middle; border: 1px solid var(--muted); }
.choice-columns { columns: 15rem auto; column-gap: 1.5rem; } .choice-columns label { margin-top: 0; break-inside: avoid; }
@media (max-width: 48rem) { .console { grid-template-columns: 1fr; } }
@media (max-width: 30rem) { .card { padding: 1rem; } dl.facts { grid-template-columns: 1fr; } }
`;

/** Where the pages live: every organization's under `/o/<orgId>/`, and what they share under `/o/assets/`. */
export const PAGES_PREFIX = '/o';
/** The stylesheet's address within the pages. */
export const STYLESHEET_ROUTE = `/assets/pages.${hash('sha256', STYLESHEET, 'hex').slice(0, 16)}.css`;
export const STYLESHEET_PATH = `${PAGES_PREFIX}${STYLESHEET_ROUTE}`;
export const STYLESHEET_TEXT = STYLESHEET;
