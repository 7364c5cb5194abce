import type { ResourceSchema, ScimDocument } from './documents.js';
import { MAX_RESULTS } from './list.js';
import { ENTERPRISE_SCHEMA, GROUP_ATTRIBUTES, GROUP_SCHEMA, USER_SCHEMA, type Attribute } from './schemas.js';

/**
 * The discovery documents (RFC 7644 §4), stating what this server does: PATCH and filters yes,
 * entity tags (ETag, If-Match) yes, bulk and sorting no, changing passwords yes.
 * Schemas and resource types are the organization's: its mapped attributes and extensions only.
 */
const SERVICE_PROVIDER_CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export function serviceProviderConfig(base: string): ScimDocument {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: true },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: 'A token with the scim scope: training-api tokens create --org <id> --scopes scim',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string, users: ResourceSchema): ScimDocument[] {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A person of the organization: a v5 user',
      schema: USER_SCHEMA,
      schemaExtensions: [...users.extensions.keys()].map((schema) => ({ schema, required: false })),
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A group of users: the users carrying the group tag',
      schema: GROUP_SCHEMA,
      schemaExtensions: [],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

function schemaDocument(base: string, id: string, name: string, description: string, attributes: Attribute[]): ScimDocument {
  return { schemas: [SCHEMA_SCHEMA], id, name, description, attributes, meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` } };
}

/** The schemas of users (core, then each extension the organization maps) and groups; common attributes are in none (RFC 7643 §3.1). */
export function schemas(base: string, users: ResourceSchema): ScimDocument[] {
  const core = users.core.filter((attribute) => !['id', 'externalId', 'meta'].includes(attribute.name));
  return [
    schemaDocument(base, USER_SCHEMA, 'User', 'User account', core),
    ...[...users.extensions].map(([urn, attributes]) =>
      schemaDocument(
        base,
        urn,
        urn === ENTERPRISE_SCHEMA ? 'EnterpriseUser' : urn.split(':').slice(-2).join(' '),
        urn === ENTERPRISE_SCHEMA ? 'Enterprise user' : "The organization's own user attributes",
        attributes,
      ),
    ),
    schemaDocument(base, GROUP_SCHEMA, 'Group', 'Group', GROUP_ATTRIBUTES),
  ];
}
