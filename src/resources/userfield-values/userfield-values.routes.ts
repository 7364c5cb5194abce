import { lockRow } from '../../db/locking.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { itemRoutes } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { IdParams } from '../../lib/schema.js';
import { UpdateUserfieldValues, UserfieldValues } from './userfield-values.schemas.js';
import type { UserfieldValuesService } from './userfield-values.service.js';

export const userfieldValuesTag: ApiTag = {
  name: 'Userfield values',
  description: "A user's values of the userfields, at /users/{id}/userfieldvalues: read together, written all or nothing.",
};

export const userfieldValuesRoutes: ConditionalResourceRoutes<UserfieldValuesService> = async (app, { service, transaction }) => {
  itemRoutes(app, {
    url: '/users/:id/userfieldvalues',
    name: 'userfieldValues',
    tag: userfieldValuesTag,
    params: IdParams,
    item: UserfieldValues,
    service,
    transaction,
    // The values hang on the user: every change of them locks the user's row.
    lock: (trx, orgId, { id }) => lockRow(trx, 'users', orgId, id),
    get: {
      summary: "Get a user's userfield values",
      description:
        'One object, userfield id → value, `{}` when the user has none: a string for text, email, date (`mm/dd/yyyy`), ' +
        'dropdown and radiobuttons; `"yes"` or `"no"` for yesno; a number for number and decimal; a boolean for checkbox ' +
        'and truefalse; a list of option names for checkboxes. 404 for a user not in the organization.',
      scope: 'read',
      read: (service, caller, { id }) => service.get(caller, id),
    },
    put: {
      summary: "Set or clear some of a user's userfield values, all or nothing",
      description:
        '`{"<userfield id>": value}` in the shapes `GET` answers, `null` to clear one; fields not named keep their values. ' +
        'When one value is refused (unknown field, a message field, wrong type, an option the field lacks, a constraint) ' +
        'nothing is written, and the 400 names every refused field id in `fieldErrors`.',
      scope: 'write',
      body: UpdateUserfieldValues,
      write: (service, caller, { id }, input) => service.update(caller, id, input),
    },
  });
};
