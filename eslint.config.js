// ESLint: type-aware checks of the TypeScript sources, and the layering of src/ (README, "Code layout").
import { dirname, relative, resolve, sep } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { routeScope } from './scripts/eslint-route-scope.mjs';
import { noForgedUnit, noTransaction } from './scripts/eslint-unit-of-work.mjs';

const SRC = resolve(import.meta.dirname, 'src');

/** Everything app.ts assembles; the command line stands above it and its settings. */
const ASSEMBLED = [
  'accounts',
  'oidc',
  'pages',
  'console',
  'lib',
  'db',
  'auth',
  'rate-limit',
  'idempotency',
  'http',
  'events',
  'plugins',
  'resources',
  'tenancy',
  'oauth',
  'scim',
  'imports',
  'api-resources.ts',
  'server',
];

/**
 * What each part of src/ may import besides itself: imports point down, never up. A part not named in
 * another's list is above it. src/api-resources.ts, the list of every resource of the API, stands above
 * the resources (SCIM's attribute mappings, webhooks and imports among them) it assembles; resources may use each
 * other's services, repositories and schemas, but never each other's routes.
 */
const LAYERS = {
  lib: [],
  db: ['lib'],
  auth: ['lib', 'db'],
  'rate-limit': ['lib'],
  idempotency: ['lib', 'db', 'auth'],
  http: ['lib', 'db', 'auth', 'idempotency'],
  // The change stream: the outbox, the event types, and the webhooks' machinery (events/webhooks/: the statements
  // of their tables, queueing and the delivery worker), one module since the outbox queues each event's deliveries
  // in its transaction. The webhooks' routes and service are a resource (resources/webhooks/).
  events: ['lib', 'db', 'auth', 'idempotency', 'http'],
  plugins: ['lib', 'db', 'auth', 'rate-limit', 'http'],
  resources: ['lib', 'db', 'auth', 'events', 'http', 'idempotency'],
  // The organizations (not a resource of the API): creating one provisions resources in it; sandboxes and sample data.
  tenancy: ['lib', 'db', 'auth', 'events', 'http', 'idempotency', 'resources'],
  // People signing in: their sessions, the throttle, required actions, forgotten passwords.
  accounts: ['lib', 'db', 'auth', 'events', 'rate-limit', 'resources'],
  oauth: ['lib', 'db', 'auth', 'http', 'plugins', 'rate-limit', 'resources'],
  // The people's pages (server-rendered HTML), over the accounts' services.
  // The OpenID Connect provider (oidc-provider) over the organizations' sign-in clients and people.
  oidc: ['lib', 'db', 'auth', 'http', 'plugins', 'resources', 'accounts', 'oauth'],
  pages: ['lib', 'db', 'auth', 'http', 'plugins', 'rate-limit', 'resources', 'tenancy', 'accounts', 'oauth', 'oidc'],
  // The administrators' console: pages over the same services as the API.
  console: [
    'lib',
    'db',
    'auth',
    'events',
    'http',
    'idempotency',
    'plugins',
    'rate-limit',
    'resources',
    'tenancy',
    'scim',
    'imports',
    'accounts',
    'oauth',
    'pages',
  ],
  scim: ['lib', 'db', 'auth', 'events', 'http', 'plugins', 'resources'],
  // Importing and exporting an organization's users from files, for the command line and POST /imports.
  imports: ['lib', 'db', 'auth', 'events', 'http', 'idempotency', 'plugins', 'resources'],
  'api-resources.ts': ['lib', 'db', 'auth', 'events', 'http', 'resources', 'scim', 'imports'],
  server: ['lib', 'db', 'events', 'http', 'plugins'],
  'config.ts': ['lib', 'db', 'events', 'rate-limit', 'server', 'accounts'],
  'app.ts': ASSEMBLED,
  cli: [...ASSEMBLED, 'config.ts', 'app.ts'],
};

/**
 * Resources of the API that stand on a layer above the others: they sit in src/resources/ beside the
 * rest, and belong to the layer whose machinery they expose (the import engine, SCIM's attributes).
 */
const LAYER_OF_FOLDER = { 'resources/imports': 'imports', 'resources/attribute-mappings': 'scim' };

/** `…/src/resources/users/users.service.ts` → ['resources', 'users', 'users.service.ts']. */
const partsOf = (file) => relative(SRC, file).split(sep);
const layerOf = (parts) => LAYER_OF_FOLDER[`${parts[0]}/${parts[1]}`] ?? parts[0];

const layering = {
  meta: {
    type: 'problem',
    docs: { description: 'Modules of src/ import only from the layers below theirs (LAYERS)' },
    schema: [],
  },
  create(context) {
    const parts = partsOf(context.filename);
    const layer = layerOf(parts);
    const allowed = new Set([layer, ...(LAYERS[layer] ?? [])]);
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = partsOf(resolve(dirname(context.filename), specifier.replace(/\.js$/, '.ts')));
      const targetLayer = layerOf(target);
      if (!LAYERS[targetLayer]) return;
      if (!allowed.has(targetLayer)) {
        context.report({
          node: node.source,
          message: `src/${layer} must not import src/${targetLayer}, which is not below it (LAYERS in eslint.config.js)`,
        });
      } else if (layer === 'resources' && parts[1] !== target[1] && target.at(-1).endsWith('.routes.ts')) {
        context.report({ node: node.source, message: "a resource must not import another resource's routes: src/api-resources.ts assembles them" });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default tseslint.config(
  {
    ignores: ['dist/', 'node_modules/', 'data/', 'bench/results/', 'clients/typescript/dist/', 'clients/typescript/src/schema.ts'],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test registers describe/test at once; the promise they return needs no await.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // A variable read by a callback before its one assignment (the app, in a pool's error handler) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // JSON documents (OpenAPI, SCIM, response bodies in tests) are walked as `any` on purpose; the compiler's
      // strict mode and the schemas guard the typed code.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Fastify plugins and interface implementations are async by contract, with or without an await.
      '@typescript-eslint/require-await': 'off',
      // Kysely's expression builders and the services are closures meant to be destructured; none uses `this`.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { local: { rules: { layering } } },
    rules: { 'local/layering': 'error' },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { routes: { rules: { scope: routeScope } } },
    rules: { 'routes/scope': 'error' },
  },
  {
    // One way to write: a transaction begins in src/db/ only, and its handle and timestamp are never forged.
    files: ['src/**/*.ts'],
    ignores: ['src/db/**'],
    plugins: { 'unit-of-work': { rules: { 'no-transaction': noTransaction, 'no-forged-unit': noForgedUnit } } },
    rules: { 'unit-of-work/no-transaction': 'error', 'unit-of-work/no-forged-unit': 'error' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
