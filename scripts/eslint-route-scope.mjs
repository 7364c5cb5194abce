// ESLint rule of `npm run lint`: every route of src/ declares the scope a token needs for it, which the
// authentication plugin checks and the OpenAPI document states (src/plugins/authentication.ts, openapi.ts).
// A route is declared either by a call of Fastify's (`app.get(url, options, handler)`), whose options carry
// `config: { scope }`, or by an object of a definition that the helpers of src/http/resource-routes.ts turn
// into routes, which carries `scope`. At start, the app refuses a route of either API declaring none.

const METHODS = new Set(['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'all']);

/** The helpers of src/http/resource-routes.ts: which argument is the definition, and which of its properties are routes (none: itself). */
const HELPERS = {
  collectionRoutes: { argument: 1, routes: ['list', 'get', 'create', 'update', 'delete'] },
  itemRoutes: { argument: 1, routes: ['get', 'put'] },
  listRoute: { argument: 2, routes: [] },
};

const isFunction = (node) => node?.type === 'ArrowFunctionExpression' || node?.type === 'FunctionExpression';

/** `app.get(url, [options,] handler)`; not a client's `https.get({ host, path }, callback)`. */
const isRouteCall = ({ callee, arguments: args }) =>
  callee.type === 'MemberExpression' &&
  !callee.computed &&
  METHODS.has(callee.property.name) &&
  (args.length === 2 || args.length === 3) &&
  args[0].type !== 'ObjectExpression' &&
  isFunction(args.at(-1));

/** The value of the property `key` of an object literal, if it has one. */
function valueOf(node, key) {
  if (node?.type !== 'ObjectExpression') return undefined;
  const found = node.properties.find(
    (property) => property.type === 'Property' && !property.computed && (property.key.name ?? property.key.value) === key,
  );
  return found?.value;
}

/** An object literal with `scope`; one that spreads another is taken at its word. */
const hasScope = (node) => valueOf(node, 'scope') !== undefined || node?.properties?.some((property) => property.type === 'SpreadElement');

const message = (what) =>
  `${what} declares no scope: the scope a token needs for it (read, write, scim; none for a route that takes no token of the API)`;

/** @type {import('eslint').Rule.RuleModule} */
export const routeScope = {
  meta: {
    type: 'problem',
    docs: { description: 'Every route declares the scope a token needs for it: `config: { scope }`, or `scope` in a route definition' },
    schema: [],
  },
  create(context) {
    return {
      CallExpression(node) {
        const { callee, arguments: args } = node;
        if (isRouteCall(node)) {
          if (!hasScope(valueOf(args.length === 3 ? args[1] : undefined, 'config'))) context.report({ node, message: message('This route') });
          return;
        }
        const helper = callee.type === 'Identifier' ? HELPERS[callee.name] : undefined;
        const definition = helper && args[helper.argument];
        if (definition?.type !== 'ObjectExpression') return;
        if (helper.routes.length === 0 && !hasScope(definition)) context.report({ node: definition, message: message('This route') });
        for (const route of helper.routes) {
          const value = valueOf(definition, route);
          if (value && !hasScope(value)) context.report({ node: value, message: message(`Its ${route} route`) });
        }
      },
    };
  },
};
