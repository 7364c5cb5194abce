import { PassThrough } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { allowLongUpload } from '../../http/long-uploads.js';
import { columnNamed, comparable, PROPERTIES, valueFields } from '../../imports/columns.js';
import { FileTooLarge } from '../../imports/file-limits.js';
import { FileReader, formatOf, type OpenedFile } from '../../imports/file-reader.js';
import { importJobsService, type JobProgress } from '../../resources/imports/import-jobs.service.js';
import { importOptionsOf } from '../../imports/import-options.js';
import type { ImportJob, ImportQuery } from '../../resources/imports/imports.schemas.js';
import { problemText, type Problem } from '../../imports/rows.js';
import { exportUsers } from '../../imports/users-export.js';
import { isId } from '../../lib/ids.js';
import { cookieNames } from '../../pages/cookies.js';
import { html, type Html } from '../../pages/html.js';
import { csrfField, notice } from '../../pages/layout.js';
import { PageError } from '../../pages/page-routes.js';
import { notForYou } from '../console.routes.js';
import { dataTable, when } from '../console-page.js';
import { ORGANIZATION_ADMINISTRATORS, type ConsoleRequest, type ConsoleSection } from '../sections.js';
import { mappingsRepository, uploadsRepository, type PreviewedOptions, type Upload } from './uploads.repository.js';

const SECTION = '/:orgId/console/imports';
/** As POST /imports: a 50,000-user HR export with a dozen columns is about 10 MB. */
const UPLOAD_LIMIT = 64 * 1024 * 1024;
const JOBS_PER_PAGE = 20;
/** Rows of each list a preview shows; the counts tell the whole. */
const SHOWN_ROWS = 500;

/** The user properties an import reads, in words. */
const PROPERTY_LABELS: Record<(typeof PROPERTIES)[number], string> = {
  email: 'Email',
  firstName: 'First name',
  lastName: 'Last name',
  username: 'Username',
  password: 'Password',
  tags: 'Tags',
  locale: 'Language (locale)',
  active: 'Active',
  accountType: 'Kind of account',
};

const STAGE_WORDS: Record<JobProgress['stage'], string> = {
  read: 'Reading the file',
  checked: 'Checking the rows',
  compared: 'Comparing with the people stored',
  imported: 'Writing',
};

const EXPORTS = {
  xlsx: { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', label: 'Excel workbook (.xlsx)' },
  csv: { type: 'text/csv; charset=utf-8', label: 'CSV (UTF-8)' },
} as const;

/** The file's name, as the browser sent it, for each upload request. */
const uploadedNames = new WeakMap<FastifyRequest, string>();

const count = (n: number) => n.toLocaleString('en-US');
const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/** What a heading is written as in the options: `map` and `ignoreColumns` are lists of `a=b` pairs separated by commas. */
const headingKey = (heading: string) => (/[,=]/.test(heading) ? comparable(heading) : heading.trim());

/** How far a running job is, in words, and the share of it done. */
function progressText(job: ImportJob, progress: JobProgress | undefined): { text: string; percent: number } {
  if (job.state !== 'running') return { text: `The ${job.summary?.dryRun || job.options.dryRun ? 'preview' : 'import'} ${job.state}.`, percent: 100 };
  if (!progress) return { text: 'Reading the file…', percent: 0 };
  const rows = progress.total > 0 ? `: ${count(progress.done)} of ${count(progress.total)} rows` : '';
  return { text: `${STAGE_WORDS[progress.stage]}${rows} (${progress.percent}%)`, percent: progress.percent };
}

function stateBadge(job: ImportJob): Html {
  const kind = job.state === 'succeeded' ? 'ok' : job.state === 'running' ? 'muted' : 'error';
  return html`<span class="badge ${kind}">${job.state}</span>`;
}

function problemsTable(problems: readonly Problem[]): Html {
  return dataTable('Refused rows', ['Row', 'Column', 'Field', 'Problem'], problems, (problem) => [
    problem.row ?? '—',
    problem.column === undefined ? '—' : String(problem.column),
    problem.field ?? '—',
    problem.row === undefined && problem.column === undefined ? problemText(problem) : problem.message,
  ]);
}

/**
 * Imports and exports: a file uploaded here is read by the shared import code (its headings, in a thread
 * with the import's budgets), its headings mapped to properties and userfields (what they meant in the last
 * import is offered again), previewed by the import's dry run, then imported by the same import jobs as
 * POST /imports, with its progress followed; the organization's people download as a workbook or CSV by the
 * command line's export.
 */
export const importsSection: ConsoleSection = {
  id: 'imports',
  title: 'Imports and exports',
  path: '/imports',
  allowed: ORGANIZATION_ADMINISTRATORS,
  routes(app, tools) {
    const jobs = importJobsService(tools.db, { passwordPolicy: tools.passwordPolicy, imports: tools.imports });
    app.addHook('onClose', () => jobs.settled());
    const uploads = uploadsRepository(tools.db);
    const mappings = mappingsRepository(tools.db);
    const base = (person: ConsoleRequest) => `${tools.base(person)}/imports`;
    const page = (reply: FastifyReply, person: ConsoleRequest, title: string, body: Html, statusCode = 200) =>
      tools.sendConsolePage(reply, person, importsSection, { title, body }, statusCode);

    async function overview(reply: FastifyReply, person: ConsoleRequest, shown: { error?: string; before?: string } = {}, statusCode = 200) {
      const { context } = person;
      const listed = await jobs.list(person.caller, { limit: JOBS_PER_PAGE + 1, ...(shown.before ? { before: shown.before } : {}) });
      const history = listed.slice(0, JOBS_PER_PAGE);
      const older = listed.length > JOBS_PER_PAGE ? history.at(-1)!.id : undefined;
      const body = html`${notice('error', shown.error)}
        <section class="card" aria-labelledby="upload-title">
          <h2 id="upload-title">Import people from a file</h2>
          <p class="hint">
            A CSV file (comma, semicolon or tab; UTF-8, UTF-16 or Windows-1252), JSON Lines, or an Excel workbook (.xlsx), up to 64 MiB. Next you say
            what each heading holds, then a preview shows who would be added, updated, deactivated or refused before anything is written.
          </p>
          <form method="post" action="${base(person)}/uploads" enctype="multipart/form-data">
            ${csrfField(context)}
            <div class="field">
              <label for="import-file">File</label>
              <input type="file" id="import-file" name="file" required accept=".csv,.tsv,.txt,.jsonl,.ndjson,.xlsx" />
            </div>
            <div class="actions"><button type="submit">Upload and map its headings</button></div>
          </form>
        </section>
        <section class="card" aria-labelledby="export-title">
          <h2 id="export-title">Export people</h2>
          <p class="hint">Every person of the organization with their userfield values, in the columns an import reads back.</p>
          <ul class="plain">
            ${Object.entries(EXPORTS).map(
              ([format, { label }]) => html`<li><a href="${base(person)}/export?format=${format}" download>Download as ${label}</a></li>`,
            )}
          </ul>
        </section>
        <section class="card" aria-labelledby="history-title">
          <h2 id="history-title">Earlier imports</h2>
          ${dataTable(
            'Earlier imports and previews, newest first',
            ['Started', 'Kind', 'State', 'Rows', 'Added', 'Updated', 'Deactivated'],
            history,
            (job) => [
              html`<a href="${base(person)}/jobs/${job.id}">${when(job.createdDate)}</a>`,
              job.options.dryRun ? 'Preview' : 'Import',
              stateBadge(job),
              job.summary?.rows ?? '—',
              job.summary?.created ?? '—',
              job.summary?.updated ?? '—',
              job.summary?.deactivated ?? '—',
            ],
            'No import yet.',
          )}
          ${older ? html`<p class="pager"><a href="${base(person)}/?before=${older}">Older imports</a></p>` : html``}
        </section>`;
      return page(reply, person, 'Imports and exports', body, statusCode);
    }

    /** The 404 page of an upload that is not (or no longer) there. */
    const noSuchUpload = (why: string) =>
      new PageError(
        404,
        () => 'No such upload',
        () => why,
      );

    /** The upload of the person's organization named by the path, or a 404 page. */
    async function uploadOf(request: FastifyRequest, person: ConsoleRequest): Promise<Upload> {
      const upload = await uploads.find(person.organization.id, (request.params as { uploadId: string }).uploadId);
      if (!upload) throw noSuchUpload('No such upload in this organization, or it expired (an upload is kept a day): upload the file again.');
      return upload;
    }

    /** The upload's file; an expired upload is a 404 page. */
    async function uploadBytes(person: ConsoleRequest, upload: Upload): Promise<Buffer> {
      const bytes = await uploads.bytes(person.organization.id, upload.id);
      if (!bytes) throw noSuchUpload('The upload expired: upload the file again.');
      return bytes;
    }

    /** Starts the import job of `POST /imports` on the upload's file; an expired upload is a 404 page, a file too large a 413. */
    async function startJob(request: FastifyRequest, person: ConsoleRequest, upload: Upload, query: ImportQuery): Promise<ImportJob> {
      const bytes = await uploadBytes(person, upload);
      try {
        return await jobs.start(person.caller, { file: { bytes } }, upload.format, query, request.log);
      } catch (error) {
        if (error instanceof FileTooLarge)
          throw new PageError(
            413,
            () => 'The file is too large to import',
            () => error.message,
          );
        throw error;
      }
    }

    /** Reads the upload's headings with the import's own reader; a file beyond its budgets is a 413 page. */
    async function headingsOf(person: ConsoleRequest, upload: Upload, where: { sheet?: string; headerRow?: number }): Promise<OpenedFile> {
      const bytes = await uploadBytes(person, upload);
      try {
        const { reader, file } = await FileReader.open({ bytes }, upload.format, where);
        await reader.close();
        return file;
      } catch (error) {
        if (error instanceof FileTooLarge)
          throw new PageError(
            413,
            () => 'The file is too large to import',
            () => error.message,
          );
        throw new PageError(
          400,
          () => 'The file cannot be read',
          () => (error as Error).message,
        );
      }
    }

    /** The page that maps the file's headings, with the options of the import; `typed` is what a refused form held. */
    async function mappingPage(
      reply: FastifyReply,
      person: ConsoleRequest,
      upload: Upload,
      where: { sheet?: string; headerRow?: number },
      typed?: { targets: Map<string, string>; form: Record<string, unknown>; errors: string[] },
      statusCode = 200,
    ) {
      const orgId = person.organization.id;
      const [file, fields, remembered] = await Promise.all([headingsOf(person, upload, where), valueFields(tools.db, orgId), mappings.all(orgId)]);
      const fieldIds = new Set(fields.map(({ field }) => field.id));
      const known = (target: string | null | undefined) =>
        target === null || target === '' || (target !== undefined && (PROPERTIES.includes(target as never) || fieldIds.has(target)));
      const automatic = (heading: string) => {
        const column = columnNamed(heading, fields);
        return column === undefined || column === 'ambiguous' ? '' : 'property' in column ? column.property : column.field.id;
      };
      const chosen = (heading: string) => {
        const typedTarget = typed?.targets.get(heading);
        if (typedTarget !== undefined) return typedTarget;
        const earlier = remembered.get(comparable(heading));
        return remembered.has(comparable(heading)) && known(earlier) ? (earlier ?? '') : automatic(heading);
      };
      // An example of each column: the first row below the headings, as the file's preview shows it.
      const preview = file.sheets.find((sheet) => sheet.name === undefined || sheet.name === file.sheet)?.rows ?? [];
      const headingCells = preview.find((row) => row.number === file.headingRow)?.cells ?? [];
      const example = preview.find((row) => file.headingRow !== undefined && row.number > file.headingRow)?.cells ?? [];
      const exampleOf = (heading: string) => example[headingCells.indexOf(heading)] ?? '';
      const form = typed?.form ?? upload.previewed?.query ?? {};
      const value = (name: keyof ImportQuery) => text(form[name as keyof typeof form] === undefined ? '' : String(form[name as keyof typeof form]));
      const ticked = (name: keyof ImportQuery) => String(form[name as keyof typeof form]) === 'true';
      const sheets = file.sheets.flatMap((sheet) => (sheet.name === undefined ? [] : [sheet.name]));
      const { context } = person;
      const action = `${base(person)}/uploads/${upload.id}`;

      const option = (target: string, label: string, selected: string) =>
        html`<option value="${target}" ${target === selected ? html` selected` : html``}>${label}</option>`;
      const body = html`${
          typed && typed.errors.length > 0
            ? html`<div class="notice error" role="alert">
                <p>The options cannot be read:</p>
                <ul>
                  ${typed.errors.map((error) => html`<li>${error}</li>`)}
                </ul>
              </div>`
            : html``
        }
        <section class="card" aria-labelledby="file-title">
          <h2 id="file-title">${upload.name}</h2>
          <dl class="facts">
            <dt>Size</dt>
            <dd>${count(upload.size)} bytes</dd>
            <dt>Rows of people</dt>
            <dd>${count(file.rows)}</dd>
            ${
              file.sheet === undefined
                ? html``
                : html`<dt>Sheet</dt>
                    <dd>${file.sheet}</dd>`
            }
            ${
              file.headingRow === undefined
                ? html``
                : html`<dt>Headings on row</dt>
                    <dd>${file.headingRow}</dd>`
            }
          </dl>
          ${
            file.problems.length > 0
              ? html`<div class="notice error" role="alert">
                  <p>The file has problems an import would refuse:</p>
                  <ul>
                    ${file.problems.slice(0, 20).map((problem) => html`<li>${problemText(problem)}</li>`)}
                  </ul>
                </div>`
              : html``
          }
          ${
            upload.format === 'jsonl'
              ? html``
              : html`<form method="get" action="${action}" aria-labelledby="where-title">
                  <h3 id="where-title">Where the headings are</h3>
                  <div class="inline-fields">
                    ${
                      sheets.length > 1
                        ? html`<div class="field">
                            <label for="sheet">Sheet</label>
                            <select id="sheet" name="sheet">
                              ${sheets.map((name) => option(name, name, file.sheet ?? ''))}
                            </select>
                          </div>`
                        : html``
                    }
                    <div class="field">
                      <label for="header-row">Row of the headings</label>
                      <input type="number" id="header-row" name="headerRow" min="1" value="${file.headingRow ?? ''}" />
                    </div>
                    <div class="actions"><button type="submit" class="secondary">Read the headings again</button></div>
                  </div>
                </form>`
          }
        </section>
        <form method="post" action="${action}/preview">
          ${csrfField(context)} ${where.sheet === undefined ? html`` : html`<input type="hidden" name="sheet" value="${where.sheet}" />`}
          ${where.headerRow === undefined ? html`` : html`<input type="hidden" name="headerRow" value="${where.headerRow}" />`}
          <section class="card" aria-labelledby="map-title">
            <h2 id="map-title">What each column holds</h2>
            <p class="hint">
              Each heading stands for a property of the person or a userfield, or is left out. What a heading meant in this organization's last import
              is chosen already.
            </p>
            ${dataTable(
              'The file’s columns',
              ['Heading', 'First value', 'Holds'],
              file.columns,
              (heading) => {
                const index = file.columns.indexOf(heading);
                const selected = chosen(heading);
                return [
                  html`<span id="heading-${index}">${heading}</span><input type="hidden" name="heading.${index}" value="${heading}" />`,
                  exampleOf(heading),
                  html`<select name="target.${index}" aria-labelledby="heading-${index}">
                    ${option('', 'Leave out', selected)}
                    <optgroup label="Properties">${PROPERTIES.map((property) => option(property, PROPERTY_LABELS[property], selected))}</optgroup>
                    ${
                      fields.length === 0
                        ? html``
                        : html`<optgroup label="Userfields">
                            ${fields.map(({ field, column }) => option(field.id, field.name ?? column, selected))}
                          </optgroup>`
                    }
                  </select>`,
                ];
              },
              'No headings found: say where they are above.',
            )}
          </section>
          <section class="card" aria-labelledby="options-title">
            <h2 id="options-title">Options</h2>
            <div class="field">
              <label for="locale">How the file writes numbers and dates (optional)</label>
              <input type="text" id="locale" name="locale" value="${value('locale')}" maxlength="35" aria-describedby="locale-hint" />
              <p class="hint" id="locale-hint">A language tag such as de, fr-CH or en-GB: a decimal comma, the day before the month.</p>
            </div>
            <label
              ><input type="checkbox" name="deactivateMissing" value="true" ${ticked('deactivateMissing') ? html` checked` : html``} /> Deactivate the
              active people the file does not name (never deletes)</label
            >
            <label
              ><input type="checkbox" name="onlyImported" value="true" ${ticked('onlyImported') ? html` checked` : html``} /> …only people an import
              brought, none made through the API or SCIM</label
            >
            <div class="field">
              <label for="max-changes">Most people it may update and deactivate (optional)</label>
              <input
                type="text"
                id="max-changes"
                name="maxChanges"
                value="${value('maxChanges')}"
                maxlength="40"
                aria-describedby="max-changes-hint"
              />
              <p class="hint" id="max-changes-hint">
                A number, a percentage or both (10%,5): beyond it the file is refused whole. 10%,5 when deactivating, unless given.
              </p>
            </div>
            <div class="actions"><button type="submit">Preview the import</button></div>
            <p class="hint">The preview writes nothing.</p>
          </section>
        </form>`;
      return page(reply, person, `Map ${upload.name}`, body, statusCode);
    }

    /** Where the headings are, from a query or a form: the sheet (a workbook's) and the row. */
    function whereOf(fields: Record<string, unknown>, upload: Upload): { sheet?: string; headerRow?: number } {
      const sheet = upload.format === 'xlsx' ? text(fields.sheet) : '';
      const row = Number(text(fields.headerRow));
      return { ...(sheet ? { sheet } : {}), ...(upload.format !== 'jsonl' && Number.isInteger(row) && row >= 1 ? { headerRow: row } : {}) };
    }

    async function jobPage(reply: FastifyReply, person: ConsoleRequest, jobId: string) {
      const { job, progress } = await jobs.status(person.caller, jobId);
      const upload = await uploads.previewedBy(person.organization.id, job.id);
      const preview = Boolean(job.options.dryRun);
      const title = preview ? 'Preview of an import' : 'Import';
      const { context } = person;
      const jobUrl = `${base(person)}/jobs/${job.id}`;
      if (job.state === 'running') {
        const now = progressText(job, progress);
        return page(
          reply,
          person,
          title,
          html`<section class="card" aria-labelledby="progress-title">
            <h2 id="progress-title">${preview ? 'Previewing' : 'Importing'}, started ${when(job.createdDate)}</h2>
            <div data-poll="${jobUrl}/status" role="status">
              <p data-poll-text>${now.text}</p>
              <progress max="100" value="${now.percent}" aria-label="Progress">${now.percent}%</progress>
            </div>
            <p><a href="${jobUrl}">Refresh</a></p>
          </section>`,
        );
      }
      const summary = job.summary;
      const changes = summary?.changes ?? [];
      const listed = (change: 'created' | 'updated' | 'deactivated') => changes.filter((entry) => entry.change === change);
      const changeList = (heading: string, change: 'created' | 'updated' | 'deactivated', total: number) => {
        const entries = listed(change);
        if (total === 0) return html``;
        const more = total - Math.min(entries.length, SHOWN_ROWS);
        return html`<h3>${heading} (${count(total)})</h3>
          ${dataTable(heading, change === 'deactivated' ? ['Email'] : ['Row', 'Email'], entries.slice(0, SHOWN_ROWS), (entry) =>
            change === 'deactivated' ? [entry.email] : [entry.row ?? '—', entry.email],
          )}
          ${more > 0 ? html`<p class="hint">…and ${count(more)} more.</p>` : html``}`;
      };
      const refused = job.state === 'refused' || job.state === 'failed';
      const body = html`<section class="card" aria-labelledby="outcome-title">
          <h2 id="outcome-title">${preview ? 'Preview' : 'Import'} of ${when(job.createdDate)}: ${stateBadge(job)}</h2>
          ${
            refused
              ? notice(
                  'error',
                  job.state === 'refused'
                    ? 'The file is refused: nothing was written. Correct the rows below, or the mapping, and try again.'
                    : 'The import stopped partway: the batches before the problem below were written.',
                )
              : notice('ok', preview ? 'Nothing was written: this is what the import would do.' : 'The import is done.')
          }
          ${
            summary
              ? html`<dl class="facts">
                  <dt>Rows</dt>
                  <dd>${count(summary.rows)}</dd>
                  <dt>${preview ? 'Would be added' : 'Added'}</dt>
                  <dd>${count(summary.created)}</dd>
                  <dt>${preview ? 'Would be updated' : 'Updated'}</dt>
                  <dd>${count(summary.updated)}</dd>
                  <dt>Unchanged</dt>
                  <dd>${count(summary.unchanged)}</dd>
                  <dt>${preview ? 'Would be deactivated' : 'Deactivated'}</dt>
                  <dd>${count(summary.deactivated)}</dd>
                  <dt>Userfield values</dt>
                  <dd>${count(summary.userfieldValues)}</dd>
                </dl>`
              : html``
          }
          ${
            job.problems
              ? html`<h3>Refused</h3>
                  ${problemsTable(job.problems)}`
              : html``
          }
          ${
            preview && summary
              ? html`${changeList('Added', 'created', summary.created)}${changeList('Updated', 'updated', summary.updated)}${changeList('Deactivated', 'deactivated', summary.deactivated)}`
              : html``
          }
        </section>
        ${
          upload
            ? html`<section class="card" aria-labelledby="next-title">
                <h2 id="next-title">${upload.name}</h2>
                ${
                  job.state === 'succeeded'
                    ? html`<form method="post" action="${base(person)}/uploads/${upload.id}/run">
                        ${csrfField(context)}
                        <div class="actions"><button type="submit">Import ${upload.name} now</button></div>
                      </form>`
                    : html``
                }
                <p><a href="${base(person)}/uploads/${upload.id}">Change the mapping or the options</a></p>
              </section>`
            : html``
        }
        <p><a href="${base(person)}">Back to imports and exports</a></p>`;
      return page(reply, person, title, body);
    }

    app.get(SECTION, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, importsSection);
      if (!person) return reply;
      const before = text((request.query as Record<string, unknown>).before);
      return overview(reply, person, isId(before) ? { before } : {});
    });

    // The upload: multipart, for this route alone, parsed only for an organization administrator.
    app.register(async (scope) => {
      await scope.register(multipart, {
        attachFieldsToBody: 'keyValues',
        limits: { fileSize: UPLOAD_LIMIT, files: 1, fields: 4, parts: 5, fieldSize: 1024 },
        async onFile(part) {
          uploadedNames.set(this, part.filename);
          await part.toBuffer();
        },
      });
      scope.post(
        `${SECTION}/uploads`,
        {
          config: { scope: 'none' },
          schema: { hide: true },
          bodyLimit: UPLOAD_LIMIT + 64 * 1024,
          preParsing: async (request, _reply, payload) => {
            const { orgId } = request.params as { orgId: string };
            const session = isId(orgId) ? await tools.sessions.resume(orgId, request.cookies[cookieNames.session(orgId)]) : undefined;
            if (session?.account_type !== 'organizationAdministrator') throw notForYou();
            allowLongUpload(request.raw);
            return payload;
          },
        },
        async (request, reply) => {
          const person = await tools.consoleRequest(request, reply, importsSection);
          if (!person) return reply;
          const bytes = person.form.file as unknown;
          const name = uploadedNames.get(request) ?? '';
          const format = formatOf(name);
          if (!Buffer.isBuffer(bytes) || bytes.length === 0)
            return overview(reply, person, { error: 'Choose a file to upload: the one sent was empty.' }, 400);
          if (!format)
            return overview(
              reply,
              person,
              { error: `${name || 'The file'} is not a file an import reads: choose a .csv, .tsv, .txt, .jsonl or .xlsx file.` },
              400,
            );
          const id = await uploads.create(person.organization.id, person.session.user_id, { name, format, bytes });
          request.log.info({ orgId: person.organization.id, uploadId: id, bytes: bytes.length }, 'import file uploaded in the console');
          return reply.redirect(`${base(person)}/uploads/${id}`, 303);
        },
      );
    });

    app.get(`${SECTION}/uploads/:uploadId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, importsSection);
      if (!person) return reply;
      const upload = await uploadOf(request, person);
      const query = request.query as Record<string, unknown>;
      const asked = 'sheet' in query || 'headerRow' in query;
      return mappingPage(reply, person, upload, asked ? whereOf(query, upload) : whereOf(upload.previewed?.query ?? {}, upload));
    });

    app.post(`${SECTION}/uploads/:uploadId/preview`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, importsSection);
      if (!person) return reply;
      const upload = await uploadOf(request, person);
      const { form } = person;
      const where = whereOf(form, upload);
      const fields = await valueFields(tools.db, person.organization.id);
      const fieldIds = new Set(fields.map(({ field }) => field.id));
      const targets = new Map<string, string>();
      const columns: PreviewedOptions['columns'] = [];
      const map: string[] = [];
      const ignore: string[] = [];
      const errors: string[] = [];
      for (const [name, value] of Object.entries(form)) {
        const index = /^heading\.(\d+)$/.exec(name)?.[1];
        if (index === undefined || typeof value !== 'string') continue;
        const target = text(form[`target.${index}`]);
        if (target !== '' && !PROPERTIES.includes(target as never) && !fieldIds.has(target)) {
          errors.push(`"${value}": no such property or userfield (deleted meanwhile?)`);
          continue;
        }
        targets.set(value, target);
        columns.push([value, target === '' ? null : target]);
        const column = columnNamed(value, fields);
        const automatic = column === undefined || column === 'ambiguous' ? '' : 'property' in column ? column.property : column.field.id;
        if (target === '') ignore.push(headingKey(value));
        else if (target !== automatic) map.push(`${headingKey(value)}=${target}`);
      }
      const query: ImportQuery = {
        ...(map.length > 0 ? { map: map.join(',') } : {}),
        ...(ignore.length > 0 ? { ignoreColumns: ignore.join(',') } : {}),
        ...where,
        ...(text(form.locale) ? { locale: text(form.locale) } : {}),
        ...(form.deactivateMissing === 'true' ? { deactivateMissing: true } : {}),
        ...(form.onlyImported === 'true' ? { onlyImported: true } : {}),
        ...(text(form.maxChanges) ? { maxChanges: text(form.maxChanges) } : {}),
      };
      const checked = importOptionsOf(upload.format, query);
      if ('errors' in checked) errors.push(...Object.entries(checked.errors).map(([option, message]) => `${option} ${message}`));
      if (errors.length > 0) return mappingPage(reply, person, upload, where, { targets, form, errors }, 400);
      const job = await startJob(request, person, upload, { ...query, dryRun: true });
      await uploads.previewed(person.organization.id, upload.id, { query, columns }, job.id);
      return reply.redirect(`${base(person)}/jobs/${job.id}`, 303);
    });

    app.post(`${SECTION}/uploads/:uploadId/run`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, importsSection);
      if (!person) return reply;
      const upload = await uploadOf(request, person);
      const orgId = person.organization.id;
      const preview = upload.previewJobId ? await jobs.get(person.caller, upload.previewJobId) : undefined;
      if (!upload.previewed || preview?.state !== 'succeeded') {
        throw new PageError(
          409,
          () => 'Preview the import first',
          () => 'An import runs the options of a preview without refusals: preview the file first.',
        );
      }
      const job = await startJob(request, person, upload, { ...upload.previewed.query, dryRun: false });
      await mappings.remember(
        orgId,
        upload.previewed.columns.flatMap(([heading, target]) =>
          comparable(heading) ? [[comparable(heading), target] as [string, string | null]] : [],
        ),
      );
      await uploads.delete(orgId, upload.id);
      request.log.info({ orgId, importId: job.id }, 'import started in the console');
      return reply.redirect(`${base(person)}/jobs/${job.id}`, 303);
    });

    app.get(`${SECTION}/jobs/:jobId`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, importsSection);
      if (!person) return reply;
      return jobPage(reply, person, (request.params as { jobId: string }).jobId);
    });

    app.get(`${SECTION}/jobs/:jobId/status`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, importsSection);
      if (!person) return reply;
      const { job, progress } = await jobs.status(person.caller, (request.params as { jobId: string }).jobId);
      return reply.header('cache-control', 'no-store').send({ ...progressText(job, progress), done: job.state !== 'running' });
    });

    app.get(`${SECTION}/export`, { config: { scope: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const person = await tools.consoleRequest(request, reply, importsSection);
      if (!person) return reply;
      // Without a format (an address typed or kept), CSV: every spreadsheet and script reads it.
      const format = text((request.query as Record<string, unknown>).format) || 'csv';
      if (format !== 'csv' && format !== 'xlsx') return overview(reply, person, { error: 'Export as xlsx or csv.' }, 400);
      const output = new PassThrough();
      exportUsers(tools.db, person.caller, format, output).then(
        (users) => {
          request.log.info({ orgId: person.organization.id, users, format }, 'users exported in the console');
          output.end();
        },
        (error: unknown) => {
          request.log.error({ err: error }, 'the export stopped');
          output.destroy(error as Error);
        },
      );
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .header('content-disposition', `attachment; filename="people-${day}.${format}"`)
        .header('cache-control', 'no-store')
        .type(EXPORTS[format].type)
        .send(output);
    });
  },
};
