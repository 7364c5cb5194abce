import { Type } from '@sinclair/typebox';
import { lockOrdering } from '../../db/dense-order.js';
import type { ConditionalResourceRoutes } from '../../http/api-instance.js';
import { itemRoutes } from '../../http/resource-routes.js';
import type { ApiTag } from '../../lib/openapi.js';
import { AttributeMappings, UpdateAttributeMappings } from './attribute-mappings.schemas.js';
import type { AttributeMappingsService } from './attribute-mappings.service.js';

export const attributeMappingsTag: ApiTag = {
  name: 'SCIM attribute mappings',
  description: 'Beyond v5. Which attributes of users provisioned through SCIM (/scim/v2) fill which userfields.',
};

/** The v5-side configuration of SCIM (beyond v5): which SCIM attributes feed which userfields. */
export const attributeMappingsRoutes: ConditionalResourceRoutes<AttributeMappingsService> = async (app, { service, transaction }) => {
  itemRoutes(app, {
    url: '/scimattributes',
    name: 'scimAttributes',
    tag: attributeMappingsTag,
    params: Type.Object({}),
    item: AttributeMappings,
    service,
    transaction,
    // The organization's row, which every change of its mappings locks first.
    lock: lockOrdering,
    get: {
      summary: 'SCIM attributes mapped onto userfields',
      description:
        "Beyond v5. SCIM attribute → userfield id: what an identity provider sends of these attributes is stored as the user's value of that field.",
      scope: 'read',
      read: (service, caller) => service.get(caller),
    },
    put: {
      summary: 'Map SCIM attributes onto userfields (null removes a mapping), all or nothing',
      description:
        'Beyond v5. `{"<SCIM attribute>": "<userfield id>"}`: the enterprise extension, core attributes the server does not ' +
        'store, typed entries (`phoneNumbers[type eq "work"].value`) and the organization\'s own extension; `null` removes a ' +
        'mapping, and attributes not named keep theirs. One refused entry refuses them all (400).',
      scope: 'write',
      body: UpdateAttributeMappings,
      write: (service, caller, _params, input) => service.update(caller, input),
    },
  });
};
