import { Type } from '@sinclair/typebox';
import type { ApiInstance } from '../../app.js';
import { itemRoutes } from '../../resources/resource-routes.js';
import { AttributeMappings, UpdateAttributeMappings } from './attribute-mappings.schemas.js';

/** The v5-side configuration of SCIM: which attributes feed which userfields (beyond v5). */
export async function attributeMappingsRoutes(app: ApiInstance): Promise<void> {
  const { scimAttributeMappings } = app.services;
  itemRoutes(app, {
    url: '/scimattributes',
    tag: 'SCIM attribute mappings',
    params: Type.Object({}),
    item: AttributeMappings,
    get: { summary: 'SCIM attributes mapped onto userfields', read: (caller) => scimAttributeMappings.get(caller) },
    put: {
      summary: 'Map SCIM attributes onto userfields (null removes a mapping), all or nothing',
      body: UpdateAttributeMappings,
      write: (caller, _params, input) => scimAttributeMappings.update(caller, input),
    },
  });
}
