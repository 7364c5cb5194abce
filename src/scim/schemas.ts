import { PASSWORD_MAX_LENGTH, type PasswordPolicy } from '../lib/password-policy.js';

/**
 * The SCIM schemas this server serves (RFC 7643), as attribute definitions. They are the single
 * source of truth of the SCIM surface: /Schemas shows them, and attribute names in bodies, paths,
 * filters and `attributes=` are resolved against them (case-insensitively, as SCIM names are).
 */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
/** The schemas RFC 7643 defines for users and groups. */
const STANDARD_SCHEMAS = new Set([USER_SCHEMA, GROUP_SCHEMA, ENTERPRISE_SCHEMA].map((urn) => urn.toLowerCase()));

/**
 * The attributes RFC 7643 defines for users, enterprise users and groups (§4.1, §4.2, §4.3). A
 * client may name any of them in `attributes=`/`excludedAttributes=` whether or not the server
 * stores it (a group's members on a user included): one it does not store is simply absent.
 */
const STANDARD_ATTRIBUTES = new Set(
  [
    ...['id', 'externalId', 'meta', 'userName', 'name', 'displayName', 'nickName', 'profileUrl', 'title', 'userType'],
    ...['preferredLanguage', 'locale', 'timezone', 'active', 'password', 'emails', 'phoneNumbers', 'ims', 'photos'],
    ...['addresses', 'groups', 'entitlements', 'roles', 'x509Certificates', 'members'],
    ...['employeeNumber', 'costCenter', 'organization', 'division', 'department', 'manager'],
  ].map((name) => name.toLowerCase()),
);

/** Whether `schema` (undefined: the resource's own) and `name` are among those RFC 7643 defines. */
export function isStandardAttributeName(name: string, schema?: string): boolean {
  return (schema === undefined || STANDARD_SCHEMAS.has(schema.toLowerCase())) && STANDARD_ATTRIBUTES.has(name.toLowerCase());
}

/** RFC 7643's multi-valued attributes, each with the sub-attributes of §2.4 (type, primary, display, value, $ref). */
const MULTI_VALUED = new Set(
  ['emails', 'phoneNumbers', 'ims', 'photos', 'addresses', 'groups', 'entitlements', 'roles', 'x509Certificates', 'members'].map((name) =>
    name.toLowerCase(),
  ),
);
const MULTI_VALUED_SUBS = ['type', 'primary', 'display', 'value', '$ref'];
/** The other sub-attributes RFC 7643 defines (§3.1, §4.1.1, §4.1.2, §4.3). */
const COMPLEX_SUBS = new Map([
  ['meta', ['resourceType', 'created', 'lastModified', 'location', 'version']],
  ['name', ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix']],
  ['addresses', ['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country']],
  ['manager', ['value', '$ref', 'displayName']],
]);

/** Whether RFC 7643 gives the attribute `parent` the sub-attribute `sub`. */
export function isStandardSubAttributeName(parent: string, sub: string): boolean {
  const key = parent.toLowerCase();
  const subs = [...(MULTI_VALUED.has(key) ? MULTI_VALUED_SUBS : []), ...(COMPLEX_SUBS.get(key) ?? [])];
  return subs.some((name) => name.toLowerCase() === sub.toLowerCase());
}

export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

export type AttributeType = 'string' | 'boolean' | 'decimal' | 'integer' | 'dateTime' | 'reference' | 'complex';

export interface Attribute {
  name: string;
  type: AttributeType;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'never' | 'default' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  subAttributes?: Attribute[];
  referenceTypes?: string[];
  canonicalValues?: string[];
}

type Options = Partial<Omit<Attribute, 'name' | 'type' | 'description'>>;

export function attribute(name: string, type: AttributeType, description: string, options: Options = {}): Attribute {
  return {
    name,
    type,
    multiValued: false,
    description,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...options,
  };
}

export interface Schema {
  id: string;
  name: string;
  description: string;
  attributes: Attribute[];
}

/** Common attributes of every resource (RFC 7643 §3.1); no schema lists them, but every path may name them. */
export const COMMON_ATTRIBUTES: Attribute[] = [
  attribute('id', 'string', 'Unique identifier of the resource, assigned by the server', {
    caseExact: true,
    mutability: 'readOnly',
    returned: 'always',
    uniqueness: 'server',
  }),
  attribute('externalId', 'string', "The identity provider's own identifier of the resource", { caseExact: true }),
  attribute('meta', 'complex', 'Resource metadata', {
    mutability: 'readOnly',
    subAttributes: [
      attribute('resourceType', 'string', 'User or Group', { mutability: 'readOnly', caseExact: true }),
      attribute('created', 'dateTime', 'When the resource was created', { mutability: 'readOnly' }),
      attribute('lastModified', 'dateTime', 'When the resource last changed', { mutability: 'readOnly' }),
      attribute('location', 'reference', 'URI of the resource', { mutability: 'readOnly', caseExact: true, referenceTypes: ['uri'] }),
      attribute('version', 'string', 'Weak entity tag of the current representation', { mutability: 'readOnly', caseExact: true }),
    ],
  }),
];

const MEMBER_REFERENCE = (description: string, referenceTypes: string[]) => [
  attribute('value', 'string', `The id of the ${description}`, { caseExact: true, mutability: 'immutable' }),
  attribute('$ref', 'reference', `URI of the ${description}`, { caseExact: true, mutability: 'immutable', referenceTypes }),
  attribute('display', 'string', `A name of the ${description}, for people`, { mutability: 'readOnly' }),
];

/** The core attributes the server stores for users; the password's rule is the configured policy's. */
export function userAttributes(passwordPolicy: PasswordPolicy): Attribute[] {
  return [
    attribute('userName', 'string', 'The v5 username; a user without one shows its email. Unique in the organization, case-insensitively', {
      required: true,
      uniqueness: 'server',
    }),
    attribute('name', 'complex', "The user's name", {
      subAttributes: [
        attribute('givenName', 'string', 'The v5 firstName'),
        attribute('familyName', 'string', 'The v5 lastName'),
        attribute('formatted', 'string', 'givenName and familyName, for display', { mutability: 'readOnly' }),
      ],
    }),
    attribute(
      'emails',
      'complex',
      'Email addresses: the primary one is the v5 email, unique in the organization; the others are kept as sent. A user needs one: when none is sent and userName is an email address, it is taken',
      {
        multiValued: true,
        required: true,
        subAttributes: [
          attribute('value', 'string', 'The email address', { required: true }),
          attribute('type', 'string', 'The kind of address, kept as sent (in lower case)', { canonicalValues: ['work', 'home', 'other'] }),
          attribute(
            'primary',
            'boolean',
            'True on one address, the v5 email: the one sent as primary, else the work one, else the first; absent on the others',
          ),
        ],
      },
    ),
    attribute('locale', 'string', 'The v5 locale: an ISO 639-1 language, optionally with a region (en, en-US; en_US is read as en-US)'),
    attribute('active', 'boolean', 'False deactivates the user, keeping everything it has; true reactivates it'),
    attribute('password', 'string', `The v5 password: ${passwordPolicy.minLength} to ${PASSWORD_MAX_LENGTH} characters with a letter and a number`, {
      mutability: 'writeOnly',
      returned: 'never',
      caseExact: true,
    }),
    attribute(
      'roles',
      'complex',
      'The v5 accountType, as one role: courseAdministrator or organizationAdministrator; none for a learner. Left out of a PUT, it is kept; [] makes the user a learner',
      {
        multiValued: true,
        subAttributes: [
          attribute('value', 'string', 'The kind of account', {
            caseExact: true,
            canonicalValues: ['learner', 'courseAdministrator', 'organizationAdministrator'],
          }),
          attribute('display', 'string', 'The kind of account, for people', { mutability: 'readOnly' }),
          attribute('type', 'string', 'Always accountType', { canonicalValues: ['accountType'] }),
          attribute('primary', 'boolean', 'Always true'),
        ],
      },
    ),
    attribute('groups', 'complex', 'The groups whose tag the user carries', {
      multiValued: true,
      mutability: 'readOnly',
      subAttributes: MEMBER_REFERENCE('group', ['Group']),
    }),
  ];
}

export const GROUP_ATTRIBUTES: Attribute[] = [
  attribute('displayName', 'string', 'The name of the group; its members carry it as a tag, with spaces and commas as _', {
    required: true,
    uniqueness: 'server',
  }),
  attribute('members', 'complex', 'The users carrying the group tag', {
    multiValued: true,
    subAttributes: [...MEMBER_REFERENCE('user', ['User']), attribute('type', 'string', 'Always User', { canonicalValues: ['User'] })],
  }),
];

/** The enterprise extension's attributes; each exists for an organization once it maps it onto a userfield. */
export const ENTERPRISE_ATTRIBUTES: Attribute[] = [
  attribute('employeeNumber', 'string', 'Employee number'),
  attribute('costCenter', 'string', 'Cost center'),
  attribute('organization', 'string', 'Organization'),
  attribute('division', 'string', 'Division'),
  attribute('department', 'string', 'Department'),
  attribute('manager', 'complex', "The user's manager", {
    subAttributes: [
      attribute('value', 'string', "The manager's id in the identity provider"),
      attribute('$ref', 'reference', "URI of the manager's user", { referenceTypes: ['User'] }),
      attribute('displayName', 'string', "The manager's name", { mutability: 'readOnly' }),
    ],
  }),
];

/** Looks a name up among attributes, case-insensitively. */
export function findAttribute(attributes: readonly Attribute[], name: string): Attribute | undefined {
  const key = name.toLowerCase();
  return attributes.find((candidate) => candidate.name.toLowerCase() === key);
}
