import { stringify } from 'csv-stringify/sync';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { neutralised } from '../../imports/users-export.js';
import type { FieldErrors } from '../../lib/domain-errors.js';
import { html, type Html } from '../../pages/html.js';
import { CHART_SCRIPT_PATH } from '../assets.js';
import { dataTable } from '../console-page.js';
import { notForYou } from '../console.routes.js';
import { inputControl, problemOf, refusalNotice } from '../form-controls.js';
import { EVERY_ADMINISTRATOR, type ConsoleRequest, type ConsoleSection } from '../sections.js';
import { daysIn, figuresOf, REPORTS, type Chart, type Report } from './reports.js';
import type { DayRange } from './report-figures.js';

const SECTION = '/:orgId/console/reports';
/** The dates shown when none are given: the last 90 days, today included. */
const DEFAULT_DAYS = 90;
/** The longest range a report reads (a year, a leap one included). */
const MOST_DAYS = 366;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A real day: `2026-02-30` matches the pattern but is none. */
const isDay = (text: string) => {
  const time = Date.parse(`${text}T00:00:00Z`);
  return DAY.test(text) && Number.isFinite(time) && new Date(time).toISOString().startsWith(text);
};
const today = () => new Date().toISOString().slice(0, 10);
const daysBefore = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/** The range of days the address asks for, as typed, and either the range or the problems of its boxes. */
export function rangeOf(query: unknown): { typed: DayRange; range?: DayRange; fieldErrors: FieldErrors } {
  const given = (name: string) => {
    const value = (query as Record<string, unknown>)[name];
    return typeof value === 'string' ? value.trim() : '';
  };
  const to = given('to') || today();
  const from = given('from') || (isDay(to) ? daysBefore(to, DEFAULT_DAYS - 1) : '');
  const typed = { from, to };
  const fieldErrors: FieldErrors = {};
  if (from && !isDay(from)) fieldErrors.from = 'Give a day as yyyy-mm-dd, such as 2026-03-01.';
  if (!isDay(to)) fieldErrors.to = 'Give a day as yyyy-mm-dd, such as 2026-03-31.';
  if (Object.keys(fieldErrors).length > 0) return { typed, fieldErrors };
  if (to < from) return { typed, fieldErrors: { to: 'The last day comes before the first: give a later one.' } };
  if (daysIn({ from, to }) > MOST_DAYS) return { typed, fieldErrors: { from: `A report covers ${MOST_DAYS} days at most: give a later first day.` } };
  return { typed, range: { from, to }, fieldErrors };
}

const isFor = (report: Report, person: ConsoleRequest) => report.allowed.includes(person.session.account_type!);

function chartOf(chart: Chart): Html {
  const figures = `figures-${chart.id}`;
  if (chart.rows.length === 0)
    return html`<h3>${chart.caption}</h3>
      <p class="hint">Nothing within these dates.</p>`;
  return html`<h3 id="chart-${chart.id}-title">${chart.caption}</h3>
    <div class="chart">
      <canvas
        id="chart-${chart.id}"
        data-chart="${chart.type}"
        data-table="#${figures}"
        ${chart.stacked ? html` data-stacked` : html``}${chart.horizontal ? html` data-axis="y"` : html``}
        role="img"
        aria-labelledby="chart-${chart.id}-title"
        aria-describedby="${figures}"
      ></canvas>
    </div>
    ${chart.note ? html`<p class="hint">${chart.note}</p>` : html``}
    <details id="${figures}">
      <summary>The figures of ${chart.caption.toLowerCase()}</summary>
      ${dataTable(chart.caption, chart.headings, chart.rows, (row) => row)}
    </details>`;
}

/**
 * Reports of the organization drawn as charts, each with a table of its figures and a CSV of them: registrations
 * per offering over time and their status and grades (for every administrator: course administrators manage
 * offerings and registrations), sign-ins per day, people active and deactivated, and webhook deliveries per
 * endpoint (organization administrators). Nothing here writes.
 */
export const reportsSection: ConsoleSection = {
  id: 'reports',
  title: 'Reports',
  path: '/reports',
  allowed: EVERY_ADMINISTRATOR,
  routes(app, tools) {
    const figures = figuresOf(tools.db);
    const admitted = (request: FastifyRequest, reply: FastifyReply) => tools.consoleRequest(request, reply, reportsSection);

    async function renderPage(reply: FastifyReply, person: ConsoleRequest, query: unknown) {
      const { typed, range, fieldErrors } = rangeOf(query);
      const url = `${tools.base(person)}/reports`;
      const reports = REPORTS.filter((report) => isFor(report, person));
      const views = range ? await Promise.all(reports.map((report) => report.view(figures, person.organization.id, range))) : [];
      const dates = new URLSearchParams(range ? { from: range.from, to: range.to } : {}).toString();
      const form = html`<form method="get" action="${url}" aria-label="Dates of the reports">
        <div class="inline-fields">
          ${inputControl({ id: 'range-from', name: 'from', label: 'From (UTC)', type: 'date', value: typed.from, problem: problemOf(fieldErrors, 'from') })}
          ${inputControl({ id: 'range-to', name: 'to', label: 'To, included', type: 'date', value: typed.to, problem: problemOf(fieldErrors, 'to') })}
        </div>
        <div class="actions"><button type="submit">Show</button> <a class="button secondary" href="${url}">Last ${DEFAULT_DAYS} days</a></div>
      </form>`;
      const body = html`${range ? html`` : refusalNotice('These dates cannot be read: see beside each box.', fieldErrors)}
        <section class="card" aria-labelledby="range-title">
          <h2 id="range-title">Dates</h2>
          ${form}
        </section>
        ${reports.map((report, index) => {
          const view = views[index];
          return html`<section class="card" aria-labelledby="report-${report.id}">
            <h2 id="report-${report.id}">${report.title}</h2>
            <p class="hint">${report.hint}</p>
            ${
              view
                ? html`${view.charts.map(chartOf)}
                    <p><a href="${url}/${report.id}.csv?${dates}" download>Download as CSV</a></p>`
                : html``
            }
          </section>`;
        })}`;
      return tools.sendConsolePage(reply, person, reportsSection, { title: 'Reports', body, scripts: [CHART_SCRIPT_PATH] }, range ? 200 : 400);
    }

    app.get(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await admitted(request, reply);
      if (!person) return reply;
      return renderPage(reply, person, request.query);
    });

    for (const report of REPORTS) {
      app.get(`${SECTION}/${report.id}.csv`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
        const person = await admitted(request, reply);
        if (!person) return reply;
        if (!isFor(report, person)) throw notForYou();
        const { range } = rangeOf(request.query);
        if (!range) return renderPage(reply, person, request.query);
        const { csv } = await report.view(figures, person.organization.id, range);
        const cells = csv.rows.map((row) => row.map((cell) => (typeof cell === 'number' ? cell : neutralised(cell))));
        const name = report.ranged ? `${report.id}-${range.from}-to-${range.to}` : `${report.id}-${range.to}`;
        return reply
          .header('content-disposition', `attachment; filename="${name}.csv"`)
          .header('cache-control', 'no-store')
          .type('text/csv; charset=utf-8')
          .send(stringify(cells, { header: true, columns: [...csv.columns] }));
      });
    }
  },
};
