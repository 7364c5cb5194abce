/** Table types as Kysely sees them. Timestamps are `yyyy-mm-ddThh:mm:ssZ` text on both engines. */
export interface OrganizationsTable {
  id: string;
  name: string;
  created_date: string;
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
  last_login_date: string | null;
}

export interface Database {
  organizations: OrganizationsTable;
  access_tokens: AccessTokensTable;
  users: UsersTable;
}
