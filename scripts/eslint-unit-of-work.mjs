// ESLint rules of `npm run lint`: one way to write (src/db/unit-of-work.ts). Every change runs in a unit of
// work, which hands out the transaction (`UnitOfWork`), who acts in it and its timestamp (`ChangeTime`); the
// outbox's `recordEvent` takes only that handle, and the columns of when a row changed only that timestamp.
// The compiler enforces both unless a handle or a timestamp is made some other way: these rules refuse the
// other ways outside src/db/, a transaction of Kysely's own and a value cast to either type.

const BRANDED = new Set(['UnitOfWork', 'ChangeTime']);

/** @type {import('eslint').Rule.RuleModule} */
export const noTransaction = {
  meta: {
    type: 'problem',
    docs: { description: 'Transactions are begun only in src/db/: everything else runs its writes in a unit of work (inTransaction)' },
    schema: [],
  },
  create(context) {
    return {
      CallExpression(node) {
        const { callee } = node;
        if (callee.type !== 'MemberExpression' || callee.computed || callee.property.name !== 'transaction' || node.arguments.length > 0) return;
        context.report({
          node,
          message:
            '.transaction() skips the unit of work (its events, its actor, its timestamp): use inTransaction from src/db/unit-of-work.ts, or a function of src/db/',
        });
      },
    };
  },
};

/** @type {import('eslint').Rule.RuleModule} */
export const noForgedUnit = {
  meta: {
    type: 'problem',
    docs: { description: 'A UnitOfWork or a ChangeTime comes from the unit of work only, never from a cast' },
    schema: [],
  },
  create(context) {
    const check = (node) => {
      const type = node.typeAnnotation;
      if (type?.type === 'TSTypeReference' && type.typeName.type === 'Identifier' && BRANDED.has(type.typeName.name)) {
        context.report({
          node,
          message: `A ${type.typeName.name} is handed out by inTransaction (src/db/unit-of-work.ts), not cast: a change recorded or stamped outside a unit of work would skip its event or the updatedDate watermark`,
        });
      }
    };
    return { TSAsExpression: check, TSTypeAssertion: check, TSSatisfiesExpression: check };
  },
};
