import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../../lib/schema.js';

const Flag = (description: string) => Type.Optional(Type.Boolean({ errorMessage: 'must be true or false', description }));
const Text = (description: string) => Type.Optional(Type.String({ maxLength: 2000, description }));

/** The options of POST /imports: the command line's flags, in camel case (see import-options.ts). */
export const ImportQuery = Type.Object(
  {
    dryRun: Flag(
      'Check and compare only: the job tells what would change (changes lists who would be updated or deactivated), and nothing is written',
    ),
    encoding: Text("The file's encoding (utf-8, utf-16le, utf-16be, windows-1252, iso-8859-1); told by its bytes when absent"),
    sheet: Text("An Excel workbook's sheet, by name (case aside); the first when absent"),
    headerRow: Type.Optional(
      Type.Integer({
        minimum: 1,
        errorMessage: 'must be a row number, from 1',
        description:
          'The row of the headings, as a spreadsheet numbers it (title rows above it are left out); the first row with something in it when absent',
      }),
    ),
    locale: Text(
      'How the file writes numbers and dates (de, fr-CH, en-GB): a decimal comma, the day before the month; when absent, a file with semicolons between its cells is read so, any other as the API writes them',
    ),
    map: Text('What headings hold: "Employee Email=email,Dept=Department"'),
    ignoreColumns: Text('Columns left out: "Cost centre,Badge"'),
    deactivateMissing: Flag("The nightly sync: deactivate (never delete) the organization's active users whose email is not in the file"),
    maxChanges: Text(
      'Refuse the whole file when it would update and deactivate more users than this: a number, a percentage of the ' +
        "organization's users, or both, the larger applying (10%,5 with deactivateMissing unless given: a tenth, and never fewer than 5; no limit without it)",
    ),
    onlyImported: Flag('With deactivateMissing: deactivate only users an import brought, none created through the API or SCIM'),
  },
  { additionalProperties: false },
);
export type ImportQuery = Static<typeof ImportQuery>;

const Count = (description: string) => Type.Integer({ description });

const ImportProblem = Type.Object(
  {
    row: Type.Optional(
      Type.Integer({ description: "The spreadsheet's row (empty rows count, as a spreadsheet shows them); absent for the whole file" }),
    ),
    column: Type.Optional(
      Type.Union([Type.String(), Type.Integer()], {
        description: "The file's column (its heading), or the character in the line for bytes the encoding cannot read",
      }),
    ),
    field: Type.Optional(Type.String({ description: 'The user property or userfield the column stands for' })),
    message: Type.String(),
  },
  { additionalProperties: false },
);

/** What an import did (or would do, in a dry run). */
export const ImportSummary = Type.Object(
  {
    rows: Count("The file's users"),
    created: Count('Users created'),
    updated: Count('Users changed'),
    unchanged: Count('Rows equal to what is stored: nothing written for them'),
    deactivated: Count('Users missing from the file that the sync deactivated'),
    userfieldValues: Count('Userfield values set or changed'),
    dryRun: Type.Boolean(),
    changes: Type.Optional(
      Type.Array(
        Type.Object({
          row: Type.Optional(Type.Integer({ description: "The file's row (as a spreadsheet numbers it); absent for a user missing from the file" })),
          email: Type.String(),
          change: Type.String({ enum: ['created', 'updated', 'deactivated'] }),
        }),
        {
          description:
            'In a dry run: each row that would create or update a user, then each user that would be deactivated; at most 10,000 (the counts tell the whole)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ImportSummary = Static<typeof ImportSummary>;

export const ImportJob = Type.Object(
  {
    id: Type.String(),
    state: Type.String({
      enum: ['running', 'succeeded', 'refused', 'failed'],
      description:
        'running; succeeded (summary holds the counts); refused (problems says why, and nothing was written; a file that would change more users than maxChanges allows has its summary too); ' +
        'failed (the import stopped partway: problems says where; the batches before were written)',
    }),
    createdDate: Timestamp('When the file was received'),
    finishedDate: Type.Optional(Timestamp('When the import finished; absent while it runs')),
    options: ImportQuery,
    summary: Type.Optional(ImportSummary),
    problems: Type.Optional(
      Type.Array(ImportProblem, { description: "The file's problems, row by row (at most 1,000); absent when there are none" }),
    ),
  },
  { $id: 'ImportJob', additionalProperties: false },
);
export type ImportJob = Static<typeof ImportJob>;
