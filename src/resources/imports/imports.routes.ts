import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { operationId } from '../../http/resource-routes.js';
import { allowLongUpload } from '../../http/long-uploads.js';
import { itemUrl } from '../../http/urls.js';
import { idempotent, sendAnswer } from '../../idempotency/idempotency.plugin.js';
import type { Caller } from '../../auth/caller.js';
import { ApiError, errors } from '../../lib/errors.js';
import type { ApiTag } from '../../lib/openapi.js';
import { ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE } from '../../lib/schema.js';
import { hasBody } from '../../plugins/protocol.js';
import type { Format } from '../../imports/file-reader.js';
import { FileTooLarge } from '../../imports/file-limits.js';
import { SpooledUpload } from '../../lib/spooled-upload.js';
import type { ImportJobsService } from './import-jobs.service.js';
import { ImportJob, ImportQuery } from './imports.schemas.js';

export const importsTag: ApiTag = {
  name: 'Imports',
  description:
    "Beyond v5. The organization's users from a file, as `training-api import users` reads it (CSV in any common encoding, JSON Lines, an Excel workbook): " +
    'checked whole before anything is written, then imported in the background; the nightly sync deactivates whoever the file misses.',
};

/** A 50,000-user HR export with a dozen columns is about 10 MB. */
const IMPORT_BODY_LIMIT = 64 * 1024 * 1024;

/** The file's format, by its Content-Type. */
const FORMAT_OF_TYPE: Record<string, Format> = {
  'text/csv': 'csv',
  'text/tab-separated-values': 'csv',
  'application/x-ndjson': 'jsonl',
  'application/jsonl': 'jsonl',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};
const TYPES = Object.keys(FORMAT_OF_TYPE);

const formatOf = (request: FastifyRequest): Format => FORMAT_OF_TYPE[String(request.headers['content-type']).split(';')[0]!.trim().toLowerCase()]!;

export const importsRoutes: ConditionalResourceRoutes<ImportJobsService> = async (app, { service }) => {
  // The body is the file, as bytes: its encoding is told by them or by the encoding option, not by a charset parameter.
  app.removeAllContentTypeParsers();
  // It is written to a temporary file as it arrives, which the import's reading thread then reads from disk.
  app.addContentTypeParser(TYPES, (request: FastifyRequest, body: Readable) =>
    SpooledUpload.of(body, request.headers['content-length'], IMPORT_BODY_LIMIT),
  );
  app.addContentTypeParser('*', (request, _payload, done) => done(hasBody(request) ? errors.unsupportedMediaType(TYPES) : null, undefined));
  app.addHook('onClose', () => service.settled());

  app.post(
    '/imports',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      // A file of tens of megabytes may take longer than REQUEST_TIMEOUT to arrive, and is let to while it keeps arriving.
      preParsing: (request, _reply, payload, done) => {
        allowLongUpload(request.raw);
        done(null, payload);
      },
      // A request refused after its body arrived but before the handler (its query, its idempotency key) leaves no file.
      onRequest: (request, reply, done) => {
        reply.raw.once('close', () => {
          if (request.body instanceof SpooledUpload)
            request.body.removeUnlessUsed().catch((error: unknown) => request.log.error({ err: error }, 'an uploaded file could not be removed'));
        });
        done();
      },
      config: { scope: 'write' },
      schema: {
        operationId: operationId('imports', 'create'),
        tags: [importsTag.name],
        summary: 'Beyond v5. Import users from a file (the request body), in the background: 202 with the job to follow',
        description:
          'The body is the file: text/csv or text/tab-separated-values (UTF-8, UTF-16, Windows-1252; comma, semicolon or tab) or JSON Lines ' +
          `(application/x-ndjson) or an Excel workbook (application/vnd.openxmlformats-officedocument.spreadsheetml.sheet; sheet names one), at most ${IMPORT_BODY_LIMIT / 1024 / 1024} MiB. The options are those of the command line. ` +
          'A file beyond what an import reads (a workbook unpacking to more than 96 MiB of XML, more than 1,048,576 rows or 16,777,216 filled cells) ' +
          'is refused with 413 before anything starts. GET the Location until the state is no longer running.',
        consumes: TYPES,
        querystring: ImportQuery,
        response: { 202: ImportJob, 400: ERROR_RESPONSE, 413: ERROR_RESPONSE, 415: ERROR_RESPONSE },
      },
    },
    async (request, reply) => {
      if (!(request.body instanceof SpooledUpload)) throw errors.unsupportedMediaType(TYPES);
      const upload = request.body;
      const accepted = (job: ImportJob) => ({ status: 202, location: itemUrl(request, 'imports', job.id), body: job });
      const start = async (caller: Caller) => {
        try {
          const job = await service.start(
            caller,
            { file: { path: upload.path }, release: () => upload.remove() },
            formatOf(request),
            request.query,
            request.log,
          );
          // The job owns the file from here, and removes it when it ends.
          upload.handOver();
          return job;
        } catch (error) {
          if (error instanceof FileTooLarge) throw new ApiError(413, { errors: [error.message] });
          throw error;
        }
      };
      return upload.use(async () => sendAnswer(reply, await idempotent(request, accepted, start)));
    },
  );

  app.get(
    '/imports/:id',
    {
      schema: {
        operationId: operationId('imports', 'get'),
        tags: [importsTag.name],
        summary: 'Beyond v5. Get an import: its state, counts and the problems of its rows',
        description:
          '`state` is `running` until the import `succeeded`, was `refused` (problems in rows, or more changes than ' +
          '`maxChanges`: nothing was written) or `failed`. `problems` lists each refused row with its column and field.',
        params: IdParams,
        response: { 200: ImportJob, 404: NOT_FOUND_RESPONSE },
      },
      config: { scope: 'read' },
    },
    async (request) => service.get(request.caller, request.params.id),
  );
};
