import type { Generated, SqlBool } from 'kysely';
import type { ChangeTime } from './change-time.js';

/**
 * Table types as Kysely sees them. Timestamps are `yyyy-mm-ddThh:mm:ssZ` text on both engines.
 * When a row last changed is a `ChangeTime`: only a unit of work's timestamp may be written there.
 * Booleans are `SqlBool`: SQLite reads them back as 0 or 1, PostgreSQL as false or true; each
 * repository turns them into booleans where it reads them.
 */
export interface OrganizationsTable {
  id: string;
  name: string;
  created_date: string;
  /** Made to be tried out: filled with sample data, and reset to it on demand. */
  sandbox: Generated<SqlBool>;
}

export interface AccessTokensTable {
  org_id: string;
  id: string;
  name: string;
  token_hash: string;
  scopes: string;
  created_date: string;
  last_used_date: string | null;
  expires_date: string | null;
  revoked_date: string | null;
  /** The OAuth client the token was issued to (POST /oauth/token); null for a token made on the command line. */
  client_id: string | null;
}

export interface OAuthClientsTable {
  org_id: string;
  id: string;
  name: string;
  secret_hash: string;
  /** The scopes its tokens may carry, comma-separated. */
  scopes: string;
  created_date: string;
  last_used_date: string | null;
  revoked_date: string | null;
  /** A client that signs people in: the addresses it may be sent back to, joined by single spaces. */
  redirect_uris: string | null;
  /** Where it may send a person after signing them out, joined by single spaces. */
  post_logout_redirect_uris: string | null;
  /** A native or browser app that keeps no secret: it proves itself with PKCE alone. */
  public: SqlBool;
}

/** A person's session in a browser: the cookie holds a random secret, the row its SHA-256 (`id`). */
export interface SessionsTable {
  org_id: string;
  id: string;
  user_id: string;
  /** ISO timestamps with milliseconds. */
  created_at: string;
  last_seen_at: string;
  /** The absolute end; the idle end is `last_seen_at` plus the idle lifetime. */
  expires_at: string;
  address: string | null;
  user_agent: string | null;
}

/** A forgotten password's one-time link: the link holds a random secret, the row its SHA-256 (`id`). */
export interface PasswordResetsTable {
  org_id: string;
  id: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

/** One object of the OpenID Connect provider's state, as the library hands it to its storage. */
export interface OidcPayloadsTable {
  model: string;
  id: string;
  org_id: string | null;
  account_id: string | null;
  grant_id: string | null;
  uid: string | null;
  /** The object as JSON. */
  payload: string;
  expires_at: string | null;
  consumed_at: string | null;
}

/** A key of the server's own (ID token signing, cookie signing), made once. */
export interface ServerKeysTable {
  name: string;
  /** JSON. */
  value: string;
  created_date: string;
}

export interface UsersTable {
  org_id: string;
  id: string;
  first_name: string | null;
  last_name: string | null;
  username: string | null;
  /** Lower-cased username, unique per organization. */
  username_key: string | null;
  email: string;
  /** Lower-cased email, unique per organization. */
  email_key: string;
  password_hash: string | null;
  locale: string | null;
  /** Tags joined by single spaces (a tag never contains a space or a comma). */
  tags: string | null;
  created_date: string;
  /** Set on creation and on every change made through the users service. */
  updated_date: ChangeTime;
  last_login_date: string | null;
  /** False while deactivated (by an identity provider or an administrator): everything is kept. */
  active: SqlBool;
  /** The identity provider's own id for the user (SCIM externalId). */
  external_id: string | null;
  /** `courseAdministrator` or `organizationAdministrator`; null for a learner. */
  account_type: 'courseAdministrator' | 'organizationAdministrator' | null;
  /** The person must choose a new password at their next sign-in. */
  password_change_required: SqlBool;
  /**
   * Sessions and sign-in tokens issued before this moment (an ISO timestamp with milliseconds) are no
   * longer valid: set when the password changes and when the person signs out everywhere.
   */
  sessions_valid_after: string | null;
}

export interface OfferingCategoriesTable {
  org_id: string;
  id: string;
  name: string;
  /** Lower-cased name, unique per organization. */
  name_key: string;
  description: string | null;
  color: string | null;
  /** Dense, zero-based position in the organization's list. */
  order_index: number;
  created_date: string;
  /** Set on creation and on every change, its position in a list included. */
  updated_date: ChangeTime;
}

export interface OfferingsTable {
  org_id: string;
  id: string;
  title: string;
  begin_date: string | null;
  end_date: string | null;
  registration_begin_date: string | null;
  registration_end_date: string | null;
  catalog_description: string | null;
  price: number | null;
  /** Tags joined by single spaces, as on users. */
  tags: string | null;
  /** Dense, zero-based position in the organization's list. */
  order_index: number;
  passing_grade: number;
  allow_retake: SqlBool;
  created_date: string;
  /** Set on creation and on every change, its position in a list included. */
  updated_date: ChangeTime;
}

interface OfferingCategoryLinksTable {
  org_id: string;
  offering_id: string;
  category_id: string;
  /** Keeps `offeringCategoryIds` in the order the client sent. */
  position: number;
}

export interface RegistrationsTable {
  org_id: string;
  id: string;
  user_id: string;
  offering_id: string;
  /** The offering's title when the registration was made. */
  title: string;
  status: 'active' | 'passed' | 'failed' | 'ejected';
  grade: number | null;
  grader_id: string | null;
  grader_comment: string | null;
  created_date: string;
  /** Set on creation and on every change, its position in a list included. */
  updated_date: ChangeTime;
  begin_date: string;
  last_active_date: string | null;
  end_date: string | null;
}

export interface AgreementsTable {
  org_id: string;
  type: 'standard' | 'custom';
  title: string;
  text: string;
  required: SqlBool;
  created_date: string;
  updated_date: ChangeTime | null;
}

/** One row per user and agreement while the user agrees, with the title and text agreed to. */
export interface UserAgreementsTable {
  org_id: string;
  user_id: string;
  type: 'standard' | 'custom';
  title: string;
  text: string;
  agreed_date: string;
}

export interface UserfieldCategoriesTable {
  org_id: string;
  id: string;
  name: string;
  /** Lower-cased name, unique per organization. */
  name_key: string;
  type: 'public' | 'private';
  /** Dense, zero-based position among the categories of its type. */
  order_index: number;
  created_date: string;
  /** Set on creation and on every change, its position in a list included. */
  updated_date: ChangeTime;
}

export interface UserfieldsTable {
  org_id: string;
  id: string;
  type: string;
  name: string | null;
  /** JSON object: locale → label. */
  localized_names: string | null;
  /** Null only for a predefined field that is in no category. */
  category_id: string | null;
  /** Dense, zero-based position in its category; null with category_id. */
  order_index: number | null;
  required: SqlBool;
  /** JSON array of {name, selected}. */
  options: string | null;
  /** JSON object: constraint name → limit. */
  constraints: string | null;
  message: string | null;
  size: string | null;
  /** A predefined field. */
  read_only: SqlBool;
  /** Made required after creation: users without a value are asked for one at their next login. */
  prompt_missing_values: SqlBool;
  created_date: string;
  /** Set on creation and on every change, its position in a list included. */
  updated_date: ChangeTime;
}

/** One row per user and field that holds a value. */
export interface UserfieldValuesTable {
  org_id: string;
  user_id: string;
  userfield_id: string;
  /** The value as JSON text, in its v5 representation. */
  value: string;
}

/** A SCIM group: the tag its members carry, with the name and ids the identity provider knows it by. */
export interface ScimGroupsTable {
  org_id: string;
  id: string;
  display_name: string;
  /** The display name as one tag: runs of spaces and commas become `_`. */
  tag: string;
  /** Lower-cased tag, unique per organization. */
  tag_key: string;
  external_id: string | null;
  created_date: string;
  updated_date: ChangeTime;
}

/** A SCIM attribute the organization maps onto one of its userfields. */
export interface ScimAttributeMappingsTable {
  org_id: string;
  /** As the organization wrote it, e.g. `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department`. */
  attribute: string;
  /** Lower-cased attribute (SCIM attribute names are case-insensitive), unique per organization. */
  attribute_key: string;
  userfield_id: string;
  created_date: string;
}

/** The outbox: one row per change, written in the change's transaction; kept for the retention period. */
export interface EventsTable {
  /** Generated as the events are written: the order of the feed on SQLite, where writes commit one after another. */
  seq: Generated<number>;
  org_id: string;
  id: string;
  type: string;
  created_date: string;
  /** The resource as the API returns it, as JSON. */
  data: string;
  /** Update events: the previous values of the properties that changed, as JSON. */
  previous_attributes: string | null;
  /** The id of the resource the event is about (events/event-types.ts, `resourceIdOf`); null before migration 0026. */
  resource_id: string | null;
  /** Who made the change (lib/actors.ts): its kind, id and name then; null for events recorded before migration 0026. */
  actor_type: string | null;
  actor_id: string | null;
  actor_name: string | null;
  /**
   * PostgreSQL: the event's place in its organization's feed, given once its transaction has
   * committed (see events/feed-positions.ts); null until then, and always on SQLite.
   */
  position: Generated<number | null>;
}

/** PostgreSQL: the last position given in each organization's feed (see events/feed-positions.ts). */
interface EventFeedsTable {
  org_id: string;
  last_position: number;
}

export interface WebhooksTable {
  org_id: string;
  id: string;
  url: string;
  description: string | null;
  /** Event types joined by single spaces. */
  event_types: string;
  /** The signing secret, `whsec_...` (see webhooks.service.ts for why it is stored as it is). */
  secret: string;
  created_date: string;
  updated_date: string;
  /** When the current run of failed attempts began (milliseconds); null after a success. */
  failing_since: string | null;
  disabled_date: string | null;
  disabled_reason: string | null;
}

export interface WebhookDeliveriesTable {
  org_id: string;
  id: string;
  webhook_id: string;
  /** The message id (`webhook-id`): the same on every attempt and resend. */
  event_id: string;
  event_type: string;
  /** The body sent, exactly as signed. */
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  /**
   * When a worker may claim it next, with milliseconds; null while it waits for an earlier delivery of
   * the same resource, and once it succeeded or failed for good.
   */
  next_attempt_at: string | null;
  /** The resource its event is about (`user:<id>`, see events/event-types.ts); null for a ping. */
  ordering_key: string | null;
  /** Insertion order: a resource's deliveries go out in this order (see events/webhooks/deliveries.ts). */
  seq: Generated<number>;
  /** After this moment (milliseconds) a failed attempt is the last one. */
  give_up_at: string;
  created_date: string;
  updated_date: string;
}

export interface WebhookAttemptsTable {
  org_id: string;
  delivery_id: string;
  attempt: number;
  attempted_date: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  /** The start of the receiver's answer, cut at a few hundred bytes. */
  response_body: string | null;
}

/** A POST's Idempotency-Key: claimed while the request runs, then holding the answer it gave. */
export interface IdempotencyKeysTable {
  org_id: string;
  key: string;
  /** SHA-256 of the method, path and canonical body. */
  request_hash: string;
  /** Who runs the request now; changes with every claim, so a claim is taken over at most once. */
  claim_id: string;
  /** When the current claim was taken, with milliseconds. */
  claimed_at: string;
  /** When the key was first used, with milliseconds: it expires 24 hours later. */
  created_at: string;
  /** The answer, once given; null while the request runs. */
  status: number | null;
  location: string | null;
  /** The answer's JSON body, if any. */
  body: string | null;
}

/** A user that a file import manages (see migration 0013). */
interface ImportedUsersTable {
  org_id: string;
  user_id: string;
  /** Set while the nightly sync holds the user deactivated for being missing from the file. */
  deactivated_date: string | null;
}

/** A SCIM user's email addresses beyond its v5 `email` (see migration 0016): a JSON list of {value, type, primary}. */
interface ScimUserEmailsTable {
  org_id: string;
  user_id: string;
  emails: string;
}

/** An import sent to POST /imports (see migration 0014). */
export interface ImportJobsTable {
  org_id: string;
  id: string;
  state: 'running' | 'succeeded' | 'refused' | 'failed';
  /** The options as sent (JSON). */
  options: string;
  /** The counts (JSON), once it succeeded. */
  summary: string | null;
  /** The file's problems (JSON), once it was refused or failed. */
  problems: string | null;
  created_date: string;
  finished_date: string | null;
  /** While running: when its server last said it is still at work (an ISO timestamp with milliseconds). */
  heartbeat_date: string | null;
  /** While running: its stage and rows (JSON), as its server last wrote them. */
  progress: string | null;
}

/** A file an administrator uploaded in the console, kept until it is imported or expires. */
export interface ImportUploadsTable {
  org_id: string;
  id: string;
  /** The file's name as the browser sent it. */
  name: string;
  format: 'csv' | 'jsonl' | 'xlsx';
  bytes: Buffer;
  size: number;
  uploaded_by: string;
  /** The options of its last preview (JSON, as POST /imports takes them). */
  options: string | null;
  /** The dry run of those options. */
  preview_job_id: string | null;
  created_date: string;
  expires_date: string;
}

/** What a heading (as compared: case, spaces and punctuation aside) stood for in the organization's last import. */
export interface ImportMappingsTable {
  org_id: string;
  heading: string;
  /** A user property, a userfield's id, or null: the column was left out. */
  target: string | null;
  updated_date: string;
}

/** A request an identity provider made to /scim/v2: what it asked and was answered, never a body; its organization's latest only. */
export interface ScimRequestsTable {
  seq: Generated<number>;
  org_id: string;
  method: string;
  /** Without the query. */
  path: string;
  status: number;
  duration_ms: number;
  token_id: string | null;
  user_agent: string | null;
  created_date: string;
}

/** How many sign-ins succeeded in an organization on a day (UTC, `yyyy-mm-dd`). */
export interface SignInDaysTable {
  org_id: string;
  day: string;
  sign_ins: number;
}

export interface Database {
  organizations: OrganizationsTable;
  access_tokens: AccessTokensTable;
  oauth_clients: OAuthClientsTable;
  users: UsersTable;
  sessions: SessionsTable;
  password_resets: PasswordResetsTable;
  oidc_payloads: OidcPayloadsTable;
  server_keys: ServerKeysTable;
  userfield_categories: UserfieldCategoriesTable;
  userfields: UserfieldsTable;
  userfield_values: UserfieldValuesTable;
  offering_categories: OfferingCategoriesTable;
  offerings: OfferingsTable;
  offering_category_links: OfferingCategoryLinksTable;
  registrations: RegistrationsTable;
  agreements: AgreementsTable;
  user_agreements: UserAgreementsTable;
  scim_groups: ScimGroupsTable;
  scim_attribute_mappings: ScimAttributeMappingsTable;
  events: EventsTable;
  event_feeds: EventFeedsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  imported_users: ImportedUsersTable;
  scim_user_emails: ScimUserEmailsTable;
  import_jobs: ImportJobsTable;
  import_uploads: ImportUploadsTable;
  import_mappings: ImportMappingsTable;
  scim_requests: ScimRequestsTable;
  sign_in_days: SignInDaysTable;
}
