import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../lib/schema.js';

const Flag = (description: string) => Type.Optional(Type.Boolean({ errorMessage: 'must be true or false', description }));
const Text = (description: string) => Type.Optional(Type.String({ maxLength: 2000, description }));

/** The options of POST /imports: the command line's flags, in camel case (see import-options.ts). */
export const ImportQuery = Type.Object(
  {
    dryRun: Flag(
      'Check and compare only: the job tells what would change (changes lists who would be updated or deactivated), and nothing is written',
    ),
    encoding: Text("The file's encoding (utf-8, utf-16le, utf-16be, windows-1252, iso-8859-1); told by its bytes when absent"),
    sheet: Text("An Excel workbook's sheet, by name; the first when absent"),
    map: Text('What headings hold: "Employee Email=email,Dept=Department"'),
    ignoreColumns: Text('Columns left out: "Cost centre,Badge"'),
    deactivateMissing: Flag("The nightly sync: deactivate (never delete) the organization's active users whose email is not in the file"),
    maxChanges: Text(
      'Refuse the whole file when it would update and deactivate more users than this: a number, or a percentage of the ' +
        "organization's users (10% with deactivateMissing unless given; no limit without it)",
    ),
    onlyImported: Flag('With deactivateMissing: deactivate only users an import brought, none created through the API or SCIM'),
  },
  { additionalProperties: false },
);
export type ImportQuery = Static<typeof ImportQuery>;

const Count = (description: string) => Type.Integer({ description });

const ImportProblem = Type.Object(
  {
    row: Type.Union([Type.Integer(), Type.Null()], { description: "The spreadsheet's row (the header is row 1); null for the whole file" }),
    column: Type.Union([Type.String(), Type.Integer(), Type.Null()], {
      description: "The file's column (its heading), or the character in the line for bytes the encoding cannot read",
    }),
    field: Type.Union([Type.String(), Type.Null()], { description: 'The user property or userfield the column stands for' }),
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
      Type.Array(Type.Object({ email: Type.String(), change: Type.String({ enum: ['updated', 'deactivated'] }) }), {
        description: 'In a dry run: every stored user that would be updated or deactivated',
      }),
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
        'running; succeeded (summary holds the counts); refused (problems says why, and nothing was written); ' +
        'failed (the import stopped partway: problems says where; the batches before were written)',
    }),
    createdDate: Timestamp('When the file was received'),
    finishedDate: Type.Union([Timestamp('When the import finished'), Type.Null()]),
    options: ImportQuery,
    summary: Type.Union([ImportSummary, Type.Null()]),
    problems: Type.Array(ImportProblem, { description: "The file's problems, row by row (at most 1,000)" }),
  },
  { $id: 'ImportJob', additionalProperties: false },
);
export type ImportJob = Static<typeof ImportJob>;
