-- The SQL training-api issues on SQLite for each request, in order, without parameters.
-- Written by `npm run snapshots` (test/snapshots/contract-snapshots.ts); test/snapshots/snapshots.test.ts fails when it drifts.
-- A write transaction does not show: it is a savepoint of one that commits a whole event-loop turn (src/db/sqlite-dialect.ts).

-- POST /api/v5/users → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
insert into "users" ("org_id", "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required", "username_key", "email_key", "password_hash") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- GET /api/v5/users?limit=2&tags=math&createdDate=2020/.. → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select (select data_version from pragma_data_version) as "version", total_changes() as "changes";
select max(t) as watermark from (select max(created_date) as t from events union all select created_date from organizations where id = ? union all select max("updated_date") from "users" where org_id = ? union all select max("updated_date") from "userfield_categories" where org_id = ? union all select max("updated_date") from "userfields" where org_id = ? union all select max("updated_date") from "offering_categories" where org_id = ? union all select max("updated_date") from "offerings" where org_id = ? union all select max("updated_date") from "registrations" where org_id = ? union all select max("created_date") from "agreements" where org_id = ? union all select max("updated_date") from "agreements" where org_id = ?);
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and (' ' || lower("tags") || ' ') like ? escape '!' and ("created_date" >= ? and 1 = 1) order by "created_date", "id" limit 3 offset ?;

-- GET /api/v5/users?email=ADA@example.com → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select (select data_version from pragma_data_version) as "version", total_changes() as "changes";
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "email_key" = ? order by "created_date", "id" limit 16 offset ?;

-- GET /api/v5/users?limit=50 → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select (select data_version from pragma_data_version) as "version", total_changes() as "changes";
select user_json from users indexed by users_created_json where org_id = ? and user_json is not null order by created_date, id limit ? offset ?;

-- GET /api/v5/users/{user} → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select user_json as "user_json" from "users" where "org_id" = ? and "id" = ?;

-- PUT /api/v5/users/{user} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "id" = ?;
update "users" set "last_name" = ?, "tags" = ?, "updated_date" = ? where "org_id" = ? and "id" = ?;
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- POST /api/v5/userfieldcategories → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "userfield_categories" where "org_id" = ? and "name_key" = ?;
select count(*) as "count" from "userfield_categories" where "org_id" = ? and "type" = ?;
select "id", "order_index", "updated_date" from "userfield_categories" where ("org_id" = ? and "order_index" >= ? and "type" = ?) order by "order_index";
insert into "userfield_categories" ("org_id", "id", "name", "type", "order_index", "created_date", "updated_date", "name_key") values (?, ?, ?, ?, ?, ?, ?, ?);
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- GET /api/v5/userfieldcategories → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select (select data_version from pragma_data_version) as "version", total_changes() as "changes";
select max(t) as watermark from (select max(created_date) as t from events union all select created_date from organizations where id = ? union all select max("updated_date") from "users" where org_id = ? union all select max("updated_date") from "userfield_categories" where org_id = ? union all select max("updated_date") from "userfields" where org_id = ? union all select max("updated_date") from "offering_categories" where org_id = ? union all select max("updated_date") from "offerings" where org_id = ? union all select max("updated_date") from "registrations" where org_id = ? union all select max("created_date") from "agreements" where org_id = ? union all select max("updated_date") from "agreements" where org_id = ?);
select * from "userfield_categories" where "org_id" = ? order by case "type" when 'public' then 0 when 'private' then 1 else 2 end, "order_index", "id" limit 16 offset ?;

-- POST /api/v5/userfields → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "userfield_categories" where "org_id" = ? and "id" = ?;
select count(*) as "count" from "userfields" where "org_id" = ? and "category_id" = ?;
select "id", "order_index", "updated_date" from "userfields" where ("org_id" = ? and "order_index" >= ? and "category_id" = ?) order by "order_index";
insert into "userfields" ("org_id", "id", "type", "name", "localized_names", "category_id", "order_index", "required", "options", "constraints", "message", "size", "read_only", "prompt_missing_values", "created_date", "updated_date") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "f".*, "c"."name" as "category_name", "c"."type" as "category_type" from "userfields" as "f" left join "userfield_categories" as "c" on "c"."org_id" = "f"."org_id" and "c"."id" = "f"."category_id" where "f"."org_id" = ? and "f"."id" = ?;
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- GET /api/v5/userfields?categoryType=public → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select (select data_version from pragma_data_version) as "version", total_changes() as "changes";
select max(t) as watermark from (select max(created_date) as t from events union all select created_date from organizations where id = ? union all select max("updated_date") from "users" where org_id = ? union all select max("updated_date") from "userfield_categories" where org_id = ? union all select max("updated_date") from "userfields" where org_id = ? union all select max("updated_date") from "offering_categories" where org_id = ? union all select max("updated_date") from "offerings" where org_id = ? union all select max("updated_date") from "registrations" where org_id = ? union all select max("created_date") from "agreements" where org_id = ? union all select max("updated_date") from "agreements" where org_id = ?);
select "f".*, "c"."name" as "category_name", "c"."type" as "category_type" from "userfields" as "f" left join "userfield_categories" as "c" on "c"."org_id" = "f"."org_id" and "c"."id" = "f"."category_id" where "f"."org_id" = ? and "c"."type" = ? order by case "c"."type" when 'public' then 0 when 'private' then 1 else 2 end, "c"."order_index", "f"."order_index", "f"."id" limit 16 offset ?;

-- PUT /api/v5/userfields/{field} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "f".*, "c"."name" as "category_name", "c"."type" as "category_type" from "userfields" as "f" left join "userfield_categories" as "c" on "c"."org_id" = "f"."org_id" and "c"."id" = "f"."category_id" where "f"."org_id" = ? and "f"."id" = ?;
update "userfields" set "required" = ?, "prompt_missing_values" = ?, "updated_date" = ? where "org_id" = ? and "id" = ?;
select count(*) as "count" from "userfields" where "org_id" = ? and "category_id" = ?;
select "f".*, "c"."name" as "category_name", "c"."type" as "category_type" from "userfields" as "f" left join "userfield_categories" as "c" on "c"."org_id" = "f"."org_id" and "c"."id" = "f"."category_id" where "f"."org_id" = ? and "f"."id" = ?;
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- PUT /api/v5/users/{user}/userfieldvalues → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id", "updated_date" from "users" where "org_id" = ? and "id" in (?) order by "id";
select * from "userfields" where "org_id" = ? and "id" in (?);
select "userfield_id", "value" from "userfield_values" where "org_id" = ? and "user_id" = ? order by "userfield_id";
insert into "userfield_values" ("org_id", "user_id", "userfield_id", "value") values (?, ?, ?, ?) on conflict ("org_id", "user_id", "userfield_id") do update set "value" = "excluded"."value";
update "users" set "updated_date" = ? where "org_id" = ? and "id" = ?;
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- GET /api/v5/users/{user}/userfieldvalues → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "id" = ?;
select "userfield_id", "value" from "userfield_values" where "org_id" = ? and "user_id" = ? order by "userfield_id";

-- POST /api/v5/offeringcategories → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id" from "offering_categories" where "org_id" = ? and "name_key" = ?;
select count(*) as "count" from "offering_categories" where "org_id" = ?;
select "id", "order_index", "updated_date" from "offering_categories" where ("org_id" = ? and "order_index" >= ?) order by "order_index";
insert into "offering_categories" ("org_id", "id", "name", "description", "color", "order_index", "created_date", "updated_date", "name_key") values (?, ?, ?, ?, ?, ?, ?, ?, ?);
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- POST /api/v5/offerings → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id" from "offering_categories" where "org_id" = ? and "id" in (?);
select count(*) as "count" from "offerings" where "org_id" = ?;
select "id", "order_index", "updated_date" from "offerings" where ("org_id" = ? and "order_index" >= ?) order by "order_index";
insert into "offerings" ("org_id", "id", "title", "begin_date", "end_date", "registration_begin_date", "registration_end_date", "catalog_description", "price", "tags", "order_index", "passing_grade", "allow_retake", "created_date", "updated_date") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
delete from "offering_category_links" where "org_id" = ? and "offering_id" = ?;
insert into "offering_category_links" ("org_id", "offering_id", "category_id", "position") values (?, ?, ?, ?);
select * from "offerings" where "org_id" = ? and "id" = ?;
select "offering_id", "category_id" from "offering_category_links" where "org_id" = ? and "offering_id" in (?) order by "offering_id", "position";
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- GET /api/v5/offerings?userId={user} → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select (select data_version from pragma_data_version) as "version", total_changes() as "changes";
select max(t) as watermark from (select max(created_date) as t from events union all select created_date from organizations where id = ? union all select max("updated_date") from "users" where org_id = ? union all select max("updated_date") from "userfield_categories" where org_id = ? union all select max("updated_date") from "userfields" where org_id = ? union all select max("updated_date") from "offering_categories" where org_id = ? union all select max("updated_date") from "offerings" where org_id = ? union all select max("updated_date") from "registrations" where org_id = ? union all select max("created_date") from "agreements" where org_id = ? union all select max("updated_date") from "agreements" where org_id = ?);
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "id" = ?;
select "offerings".* from "offerings" where "offerings"."org_id" = ? and exists (select "users"."id" from "users" where "users"."org_id" = ? and "users"."id" = ? and "users"."active" = ?) and (("offerings"."registration_begin_date" is null or "offerings"."registration_begin_date" <= ?) and ("offerings"."registration_end_date" is null or "offerings"."registration_end_date" >= ?)) and not exists (select "registrations"."id" from "registrations" where "registrations"."org_id" = ? and "registrations"."user_id" = ? and "registrations"."offering_id" = "offerings"."id" and ("registrations"."status" = 'active' or ("registrations"."status" in ('passed', 'failed') and "offerings"."allow_retake" = ?))) order by "offerings"."order_index", "offerings"."id" limit 16 offset ?;
select "offering_id", "category_id" from "offering_category_links" where "org_id" = ? and "offering_id" in (?) order by "offering_id", "position";

-- POST /api/v5/registrations → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "title", (("offerings"."registration_begin_date" is null or "offerings"."registration_begin_date" <= ?) and ("offerings"."registration_end_date" is null or "offerings"."registration_end_date" >= ?)) as "open" from "offerings" where "org_id" = ? and "id" = ?;
select "active" from "users" where "org_id" = ? and "id" = ?;
select "registrations"."status" from "registrations" inner join "offerings" on "offerings"."org_id" = "registrations"."org_id" and "offerings"."id" = "registrations"."offering_id" where "registrations"."org_id" = ? and "registrations"."user_id" = ? and "registrations"."offering_id" = ? and ("registrations"."status" = 'active' or ("registrations"."status" in ('passed', 'failed') and "offerings"."allow_retake" = ?)) order by "registrations"."status";
insert into "registrations" ("org_id", "id", "user_id", "offering_id", "title", "status", "grade", "grader_id", "grader_comment", "created_date", "updated_date", "begin_date", "last_active_date", "end_date") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- GET /api/v5/registrations?status=active&userId={user} → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select (select data_version from pragma_data_version) as "version", total_changes() as "changes";
select max(t) as watermark from (select max(created_date) as t from events union all select created_date from organizations where id = ? union all select max("updated_date") from "users" where org_id = ? union all select max("updated_date") from "userfield_categories" where org_id = ? union all select max("updated_date") from "userfields" where org_id = ? union all select max("updated_date") from "offering_categories" where org_id = ? union all select max("updated_date") from "offerings" where org_id = ? union all select max("updated_date") from "registrations" where org_id = ? union all select max("created_date") from "agreements" where org_id = ? union all select max("updated_date") from "agreements" where org_id = ?);
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "id" = ?;
select * from "registrations" where "org_id" = ? and "status" = ? and "user_id" = ? order by "created_date", "id" limit 16 offset ?;

-- PUT /api/v5/registrations/{registration} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "registrations" where "org_id" = ? and "id" = ?;
select * from "offerings" where "org_id" = ? and "id" = ?;
update "registrations" set "status" = ?, "grade" = ?, "end_date" = ?, "updated_date" = ? where "org_id" = ? and "id" = ?;
select * from "registrations" where "org_id" = ? and "id" = ?;
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- GET /api/v5/agreements → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select (select data_version from pragma_data_version) as "version", total_changes() as "changes";
select max(t) as watermark from (select max(created_date) as t from events union all select created_date from organizations where id = ? union all select max("updated_date") from "users" where org_id = ? union all select max("updated_date") from "userfield_categories" where org_id = ? union all select max("updated_date") from "userfields" where org_id = ? union all select max("updated_date") from "offering_categories" where org_id = ? union all select max("updated_date") from "offerings" where org_id = ? union all select max("updated_date") from "registrations" where org_id = ? union all select max("created_date") from "agreements" where org_id = ? union all select max("updated_date") from "agreements" where org_id = ?);
select * from "agreements" where "org_id" = ? order by "type" desc limit 16 offset ?;

-- PUT /api/v5/users/{user}/agreements/standard → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id", "updated_date" from "users" where "org_id" = ? and "id" in (?) order by "id";
select "agreements".*, "user_agreements"."title" as "agreed_title", "user_agreements"."text" as "agreed_text", "user_agreements"."agreed_date" from "agreements" left join "user_agreements" on "user_agreements"."org_id" = "agreements"."org_id" and "user_agreements"."type" = "agreements"."type" and "user_agreements"."user_id" = ? where "agreements"."org_id" = ? and "agreements"."type" = ? order by "agreements"."type" desc;
insert into "user_agreements" ("org_id", "user_id", "type", "title", "text", "agreed_date") values (?, ?, ?, ?, ?, ?) on conflict ("org_id", "user_id", "type") do update set "title" = ?, "text" = ?, "agreed_date" = ?;
update "users" set "updated_date" = ? where "org_id" = ? and "id" = ?;
select "agreements".*, "user_agreements"."title" as "agreed_title", "user_agreements"."text" as "agreed_text", "user_agreements"."agreed_date" from "agreements" left join "user_agreements" on "user_agreements"."org_id" = "agreements"."org_id" and "user_agreements"."type" = "agreements"."type" and "user_agreements"."user_id" = ? where "agreements"."org_id" = ? and "agreements"."type" = ? order by "agreements"."type" desc;
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- GET /api/v5/users/{user}/agreements → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "id" = ?;
select "agreements".*, "user_agreements"."title" as "agreed_title", "user_agreements"."text" as "agreed_text", "user_agreements"."agreed_date" from "agreements" left join "user_agreements" on "user_agreements"."org_id" = "agreements"."org_id" and "user_agreements"."type" = "agreements"."type" and "user_agreements"."user_id" = ? where "agreements"."org_id" = ? order by "agreements"."type" desc limit 16 offset ?;

-- PUT /api/v5/scimattributes → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "scim_attribute_mappings" where "org_id" = ? order by "attribute_key";
select * from "userfields" where "org_id" = ? and "id" in (?);
insert into "scim_attribute_mappings" ("org_id", "attribute", "attribute_key", "userfield_id", "created_date") values (?, ?, ?, ?, ?) on conflict ("org_id", "attribute_key") do update set "attribute" = "excluded"."attribute", "userfield_id" = "excluded"."userfield_id";

-- POST /scim/v2/Users → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "scim_attribute_mappings" where "org_id" = ? order by "attribute_key";
select * from "userfields" where "org_id" = ? and "id" in (?);
insert into "users" ("org_id", "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required", "username_key", "email_key", "password_hash") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "id" = ?;
select "user_id", "userfield_id", "value" from "userfield_values" where "org_id" = ? and "user_id" in (?) and "userfield_id" in (?);
select "user_id", "emails" from "scim_user_emails" where "org_id" = ? and "user_id" in (?);
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values (?, ?, ?, ?, ?, ?, ?, ?);
delete from "scim_requests" where "org_id" = ? and "seq" <= (select "seq" from "scim_requests" where "org_id" = ? order by "seq" desc limit ? offset ?);

-- GET /scim/v2/Users?filter=userName%20eq%20%22grace%40example.com%22 → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "scim_attribute_mappings" where "org_id" = ? order by "attribute_key";
select * from "userfields" where "org_id" = ? and "id" in (?);
select count(*) as "total" from "users" where "users"."org_id" = ? and ("users"."username_key" = ? or ("users"."username_key" is null and "users"."email_key" = ?));
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "users"."org_id" = ? and ("users"."username_key" = ? or ("users"."username_key" is null and "users"."email_key" = ?)) order by "created_date", "id" limit ? offset ?;
select "user_id", "userfield_id", "value" from "userfield_values" where "org_id" = ? and "user_id" in (?) and "userfield_id" in (?);
select "user_id", "emails" from "scim_user_emails" where "org_id" = ? and "user_id" in (?);
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values (?, ?, ?, ?, ?, ?, ?, ?);
delete from "scim_requests" where "org_id" = ? and "seq" <= (select "seq" from "scim_requests" where "org_id" = ? order by "seq" desc limit ? offset ?);

-- POST /api/v5/webhooks → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
insert into "webhooks" ("org_id", "id", "url", "description", "event_types", "secret", "created_date", "updated_date", "failing_since", "disabled_date", "disabled_reason") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- PUT /api/v5/users/{user} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "id" = ?;
update "users" set "first_name" = ?, "updated_date" = ? where "org_id" = ? and "id" = ?;
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;
select max("seq") as "last" from "webhook_deliveries";
insert into "webhook_deliveries" ("org_id", "id", "webhook_id", "event_id", "event_type", "payload", "ordering_key", "status", "attempts", "next_attempt_at", "give_up_at", "created_date", "updated_date", "seq") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id", "seq";
select d.webhook_id, d.ordering_key from webhook_deliveries d
        where ("d"."org_id", "d"."id") in (select * from (select last.org_id, last.id from (select d.org_id, d.id from webhook_deliveries d
        where d.org_id = ? and d.webhook_id = ? and d.ordering_key = ?
        and d.status = 'pending' and d.seq < ? order by d.seq desc limit 1) last) as members) and d.status = 'pending';

-- PUT /api/v5/webhooks/{webhook} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "webhooks" where "org_id" = ? and "id" = ?;
update "webhooks" set "disabled_date" = ?, "disabled_reason" = ?, "updated_date" = ? where "org_id" = ? and "id" = ?;

-- PUT /api/v5/webhooks/{webhook} → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "webhooks" where "org_id" = ? and "id" = ?;
update "webhooks" set "disabled_date" = ?, "disabled_reason" = ?, "failing_since" = ?, "updated_date" = ? where "org_id" = ? and "id" = ?;
select * from "webhooks" where "org_id" = ? and "id" = ?;
select count(*) as "count" from "events" as "e" where "e"."org_id" = ? and "e"."created_date" >= ? and "e"."type" in (?) and not exists (select "d"."id" from "webhook_deliveries" as "d" where "d"."org_id" = ? and "d"."webhook_id" = ? and "d"."event_id" = "e"."id" and "d"."status" in (?, ?));

-- POST /api/v5/webhooks/{webhook}/recover → 202
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "webhooks" where "org_id" = ? and "id" = ?;
select "id" from "webhooks" where "org_id" = ? and "id" = ?;
select "e"."seq", "e"."id", "e"."type", "e"."created_date", "e"."data", "e"."previous_attributes", "e"."actor_type", "e"."actor_id", "e"."actor_name" from "events" as "e" where "e"."org_id" = ? and "e"."created_date" >= ? and "e"."type" in (?) and not exists (select "d"."id" from "webhook_deliveries" as "d" where "d"."org_id" = ? and "d"."webhook_id" = ? and "d"."event_id" = "e"."id" and "d"."status" in (?, ?)) and "e"."seq" > ? order by "e"."seq" limit ?;
select max("seq") as "last" from "webhook_deliveries";
insert into "webhook_deliveries" ("org_id", "id", "webhook_id", "event_id", "event_type", "payload", "ordering_key", "status", "attempts", "next_attempt_at", "give_up_at", "created_date", "updated_date", "seq") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id", "seq";
select d.webhook_id, d.ordering_key from webhook_deliveries d
        where ("d"."org_id", "d"."id") in (select * from (select last.org_id, last.id from (select d.org_id, d.id from webhook_deliveries d
        where d.org_id = ? and d.webhook_id = ? and d.ordering_key = ?
        and d.status = 'pending' and d.seq < ? order by d.seq desc limit 1) last) as members) and d.status = 'pending';
update "webhook_deliveries" set "next_attempt_at" = ? where "org_id" = ? and "id" in (?);

-- GET /api/v5/events?limit=5 → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select
        aggregated.events_json,
        (select id from events where seq = aggregated.last_seq) as last_id,
        exists (select 1 from events where org_id = ? and seq > aggregated.last_seq) as more
      from (
        select cast(group_concat(event_json, ',' order by seq) as blob) as events_json, max(seq) as last_seq
        from (
          select seq, '{"id":"' || "id" || '","type":"' || "type" || '","createdDate":"' || "created_date" || '","organizationId":"' || "org_id" || '"' || case when "actor_type" <> '' then ',"actor":{"type":"' || "actor_type" || '","id":' || json_quote("actor_id") || ',"name":' || json_quote("actor_name") || '}' else '' end || ',"data":' || "data" || coalesce(',"previousAttributes":' || "previous_attributes", '') || '}' as event_json
          from events
          where org_id = ? and seq > ?
          order by seq
          limit ?
        ) as page_events
      ) as aggregated;

-- POST /scim/v2/Groups → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id", "display_name" from "scim_groups" where "org_id" = ? and "tag_key" = ?;
insert into "scim_groups" ("org_id", "id", "display_name", "tag", "tag_key", "external_id", "created_date", "updated_date") values (?, ?, ?, ?, ?, ?, ?, ?);
select "id", "username", "email", "tags" from "users" where "users"."org_id" = ? and (users.tags is not null and (' ' || lower("users"."tags") || ' ') like ? escape '!') order by "created_date", "id";
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values (?, ?, ?, ?, ?, ?, ?, ?);
delete from "scim_requests" where "org_id" = ? and "seq" <= (select "seq" from "scim_requests" where "org_id" = ? order by "seq" desc limit ? offset ?);

-- POST /scim/v2/Groups → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id", "display_name" from "scim_groups" where "org_id" = ? and "tag_key" = ?;
insert into "scim_groups" ("org_id", "id", "display_name", "tag", "tag_key", "external_id", "created_date", "updated_date") values (?, ?, ?, ?, ?, ?, ?, ?);
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "id" in (?) order by "id";
update "users" set "tags" = ?, "updated_date" = ? where "org_id" = ? and "id" in (?);
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;
select max("seq") as "last" from "webhook_deliveries";
insert into "webhook_deliveries" ("org_id", "id", "webhook_id", "event_id", "event_type", "payload", "ordering_key", "status", "attempts", "next_attempt_at", "give_up_at", "created_date", "updated_date", "seq") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id", "seq";
select d.webhook_id, d.ordering_key from webhook_deliveries d
        where ("d"."org_id", "d"."id") in (select * from (select last.org_id, last.id from (select d.org_id, d.id from webhook_deliveries d
        where d.org_id = ? and d.webhook_id = ? and d.ordering_key = ?
        and d.status = 'pending' and d.seq < ? order by d.seq desc limit 1) last) as members) and d.status = 'pending';
update "webhook_deliveries" set "next_attempt_at" = ? where "org_id" = ? and "id" in (?);
select "id", "username", "email", "tags" from "users" where "users"."org_id" = ? and (users.tags is not null and (' ' || lower("users"."tags") || ' ') like ? escape '!') order by "created_date", "id";
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values (?, ?, ?, ?, ?, ?, ?, ?);
delete from "scim_requests" where "org_id" = ? and "seq" <= (select "seq" from "scim_requests" where "org_id" = ? order by "seq" desc limit ? offset ?);

-- GET /scim/v2/Groups?excludedAttributes=members → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select count(*) as "total" from "scim_groups" where "scim_groups"."org_id" = ? and (1 = 1);
select * from "scim_groups" where "scim_groups"."org_id" = ? and (1 = 1) order by "created_date", "id" limit ? offset ?;
select "id", "username", "email", "tags" from "users" where "users"."org_id" = ? and (users.tags is not null and (1 = 1)) order by "created_date", "id";
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values (?, ?, ?, ?, ?, ?, ?, ?);
delete from "scim_requests" where "org_id" = ? and "seq" <= (select "seq" from "scim_requests" where "org_id" = ? order by "seq" desc limit ? offset ?);

-- GET /scim/v2/Groups/{group} → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "scim_groups" where "org_id" = ? and "id" = ?;
select "id", "username", "email", "tags" from "users" where "users"."org_id" = ? and (users.tags is not null and (' ' || lower("users"."tags") || ' ') like ? escape '!') order by "created_date", "id";
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values (?, ?, ?, ?, ?, ?, ?, ?);
delete from "scim_requests" where "org_id" = ? and "seq" <= (select "seq" from "scim_requests" where "org_id" = ? order by "seq" desc limit ? offset ?);

-- DELETE /api/v5/userfields/{field} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "f".*, "c"."name" as "category_name", "c"."type" as "category_type" from "userfields" as "f" left join "userfield_categories" as "c" on "c"."org_id" = "f"."org_id" and "c"."id" = "f"."category_id" where "f"."org_id" = ? and "f"."id" = ?;
select "user_id", "value" from "userfield_values" where "org_id" = ? and "userfield_id" = ?;
select "id", "updated_date" from "users" where "org_id" = ? and "id" in (?) order by "id";
select "id" from "userfields" where "org_id" = ? and "id" = ?;
select "user_id", "value" from "userfield_values" where "org_id" = ? and "userfield_id" = ?;
select "user_id", "userfield_id", "value" from "userfield_values" where "org_id" = ? and "user_id" in (?);
update "users" set "updated_date" = ? where "org_id" = ? and "id" in (?);
delete from "userfield_values" where "org_id" = ? and "userfield_id" = ? and "user_id" in (?);
delete from "userfields" where "org_id" = ? and "id" = ?;
select "id", "order_index", "updated_date" from "userfields" where ("org_id" = ? and "order_index" >= ? and "category_id" = ?) order by "order_index";
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;

-- DELETE /api/v5/offerings/{offering} → 400
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select * from "offerings" where "org_id" = ? and "id" = ?;
select "status" from "registrations" where "org_id" = ? and "offering_id" = ?;

-- PUT /api/v5/users/{user} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "password_hash" from "users" where "org_id" = ? and "id" = ?;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "id" = ?;
update "users" set "password_hash" = ?, "updated_date" = ?, "sessions_valid_after" = ? where "org_id" = ? and "id" = ?;
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;
select max("seq") as "last" from "webhook_deliveries";
insert into "webhook_deliveries" ("org_id", "id", "webhook_id", "event_id", "event_type", "payload", "ordering_key", "status", "attempts", "next_attempt_at", "give_up_at", "created_date", "updated_date", "seq") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id", "seq";
select d.webhook_id, d.ordering_key from webhook_deliveries d
        where ("d"."org_id", "d"."id") in (select * from (select last.org_id, last.id from (select d.org_id, d.id from webhook_deliveries d
        where d.org_id = ? and d.webhook_id = ? and d.ordering_key = ?
        and d.status = 'pending' and d.seq < ? order by d.seq desc limit 1) last) as members) and d.status = 'pending';
update "webhook_deliveries" set "next_attempt_at" = ? where "org_id" = ? and "id" in (?);

-- DELETE /api/v5/users/{user} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = ?;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = ? and "id" = ?;
delete from "users" where "org_id" = ? and "id" = ?;
insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
select "id", "event_types" from "webhooks" where "org_id" = ? and "disabled_date" is null;
