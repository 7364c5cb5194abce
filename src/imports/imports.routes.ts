import type { FastifyRequest } from 'fastify';
import type { ConditionalResourceRoutes } from '../http/api-instance.js';
import { operationId } from '../http/resource-routes.js';
import { itemUrl } from '../http/urls.js';
import { idempotent, sendAnswer } from '../idempotency/idempotency.plugin.js';
import { errors } from '../lib/errors.js';
import type { ApiTag } from '../lib/openapi.js';
import { ERROR_RESPONSE, IdParams, NOT_FOUND_RESPONSE } from '../lib/schema.js';
import { hasBody } from '../plugins/protocol.js';
import type { Format } from './file-rows.js';
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
  'application/x-ndjson': 'jsonl',
  'application/jsonl': 'jsonl',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};
const TYPES = Object.keys(FORMAT_OF_TYPE);

const formatOf = (request: FastifyRequest): Format => FORMAT_OF_TYPE[String(request.headers['content-type']).split(';')[0]!.trim().toLowerCase()]!;

export const importsRoutes: ConditionalResourceRoutes<ImportJobsService> = async (app, { service }) => {
  // The body is the file, as bytes: its encoding is told by them or by the encoding option, not by a charset parameter.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(TYPES, { parseAs: 'buffer', bodyLimit: IMPORT_BODY_LIMIT }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('*', (request, _payload, done) => done(hasBody(request) ? errors.unsupportedMediaType(TYPES) : null, undefined));
  app.addHook('onClose', () => service.settled());

  app.post(
    '/imports',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        operationId: operationId('imports', 'create'),
        tags: [importsTag.name],
        summary: 'Beyond v5. Import users from a file (the request body), in the background: 202 with the job to follow',
        description:
          'The body is the file: text/csv (UTF-8, UTF-16 with a byte order mark, Windows-1252; comma, semicolon or tab) or JSON Lines ' +
          `(application/x-ndjson) or an Excel workbook (application/vnd.openxmlformats-officedocument.spreadsheetml.sheet; sheet names one), at most ${IMPORT_BODY_LIMIT / 1024 / 1024} MiB. The options are those of the command line. ` +
          'GET the Location until the state is no longer running.',
        consumes: TYPES,
        querystring: ImportQuery,
        response: { 202: ImportJob, 400: ERROR_RESPONSE, 413: ERROR_RESPONSE, 415: ERROR_RESPONSE },
      },
    },
    async (request, reply) => {
      if (!Buffer.isBuffer(request.body)) throw errors.unsupportedMediaType(TYPES);
      const file = request.body;
      const accepted = (job: ImportJob) => ({ status: 202, location: itemUrl(request, 'imports', job.id), body: job });
      return sendAnswer(
        reply,
        await idempotent(request, accepted, (caller) => service.start(caller, file, formatOf(request), request.query, request.log)),
      );
    },
  );

  app.get(
    '/imports/:id',
    {
      schema: {
        operationId: operationId('imports', 'get'),
        tags: [importsTag.name],
        summary: 'Beyond v5. Get an import: its state, counts and the problems of its rows',
        params: IdParams,
        response: { 200: ImportJob, 404: NOT_FOUND_RESPONSE },
      },
    },
    async (request) => service.get(request.caller, request.params.id),
  );
};
