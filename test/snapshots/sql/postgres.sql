-- The SQL training-api issues on PostgreSQL for each request, in order, without parameters.
-- Written by `npm run snapshots` (test/snapshots/contract-snapshots.ts); test/snapshots/snapshots.test.ts fails when it drifts.

-- POST /api/v5/users → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
insert into "users" ("org_id", "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required", "username_key", "email_key", "password_hash") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18);
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- GET /api/v5/users?limit=2&tags=math&createdDate=2020/.. → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select to_char(min(xact_start) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as watermark
    from pg_stat_get_activity(null)
    where datid = (select oid from pg_database where datname = current_database()) and backend_type = 'client backend';
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and (' ' || lower("tags") || ' ') like $2 escape '!' and ("created_date" >= $3 and 1 = 1) order by "created_date", "id" limit 3 offset $4;

-- GET /api/v5/users?email=ADA@example.com → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select to_char(min(xact_start) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as watermark
    from pg_stat_get_activity(null)
    where datid = (select oid from pg_database where datname = current_database()) and backend_type = 'client backend';
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "email_key" = $2 order by "created_date", "id" limit 16 offset $3;

-- GET /api/v5/users?limit=50 → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select to_char(min(xact_start) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as watermark
    from pg_stat_get_activity(null)
    where datid = (select oid from pg_database where datname = current_database()) and backend_type = 'client backend';
select case when json_verbatim then '{"id":"' || "id" || '","email":"' || "email" || '","createdDate":"' || "created_date" || '","active":' || case when "active" then 'true' else 'false' end || ',"updatedDate":"' || "updated_date" || '"' || case when "first_name" <> '' then ',"firstName":"' || "first_name" || '"' else '' end || case when "last_name" <> '' then ',"lastName":"' || "last_name" || '"' else '' end || case when "username" <> '' then ',"username":"' || "username" || '"' else '' end || case when "tags" <> '' then ',"tags":["' || replace("tags", ' ', '","') || '"]' else '' end || case when "locale" <> '' then ',"locale":"' || "locale" || '"' else '' end || case when "last_login_date" <> '' then ',"lastLoginDate":"' || "last_login_date" || '"' else '' end || case when "account_type" <> '' then ',"accountType":"' || "account_type" || '"' else '' end || '}' else '{"id":"' || "id" || '","email":' || to_json("email")::text || ',"createdDate":"' || "created_date" || '","active":' || case when "active" then 'true' else 'false' end || ',"updatedDate":"' || "updated_date" || '"' || case when "first_name" <> '' then ',"firstName":' || to_json("first_name")::text else '' end || case when "last_name" <> '' then ',"lastName":' || to_json("last_name")::text else '' end || case when "username" <> '' then ',"username":' || to_json("username")::text else '' end || case when "tags" <> '' then ',"tags":[' || replace(to_json("tags")::text, ' ', '","') || ']' else '' end || case when "locale" <> '' then ',"locale":' || to_json("locale")::text else '' end || case when "last_login_date" <> '' then ',"lastLoginDate":"' || "last_login_date" || '"' else '' end || case when "account_type" <> '' then ',"accountType":"' || "account_type" || '"' else '' end || '}' end as "user_json" from "users" where "org_id" = $1 order by "created_date", "id" limit $2 offset $3;

-- GET /api/v5/users/{user} → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" = $2;

-- PUT /api/v5/users/{user} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" = $2 for update;
update "users" set "last_name" = $1, "tags" = $2, "updated_date" = $3 where "org_id" = $4 and "id" = $5;
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- POST /api/v5/userfieldcategories → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id" from "organizations" where "id" = $1 for no key update;
select * from "userfield_categories" where "org_id" = $1 and "name_key" = $2;
select count(*) as "count" from "userfield_categories" where "org_id" = $1 and "type" = $2;
select "id", "order_index", "updated_date" from "userfield_categories" where ("org_id" = $1 and "order_index" >= $2 and "type" = $3) order by "order_index";
insert into "userfield_categories" ("org_id", "id", "name", "type", "order_index", "created_date", "updated_date", "name_key") values ($1, $2, $3, $4, $5, $6, $7, $8);
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- GET /api/v5/userfieldcategories → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select to_char(min(xact_start) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as watermark
    from pg_stat_get_activity(null)
    where datid = (select oid from pg_database where datname = current_database()) and backend_type = 'client backend';
select * from "userfield_categories" where "org_id" = $1 order by case "type" when 'public' then 0 when 'private' then 1 else 2 end, "order_index", "id" limit 16 offset $2;

-- POST /api/v5/userfields → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id" from "organizations" where "id" = $1 for no key update;
select * from "userfield_categories" where "org_id" = $1 and "id" = $2;
select count(*) as "count" from "userfields" where "org_id" = $1 and "category_id" = $2;
select "id", "order_index", "updated_date" from "userfields" where ("org_id" = $1 and "order_index" >= $2 and "category_id" = $3) order by "order_index";
insert into "userfields" ("org_id", "id", "type", "name", "localized_names", "category_id", "order_index", "required", "options", "constraints", "message", "size", "read_only", "prompt_missing_values", "created_date", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16);
select "f".*, "c"."name" as "category_name", "c"."type" as "category_type" from "userfields" as "f" left join "userfield_categories" as "c" on "c"."org_id" = "f"."org_id" and "c"."id" = "f"."category_id" where "f"."org_id" = $1 and "f"."id" = $2;
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- GET /api/v5/userfields?categoryType=public → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select to_char(min(xact_start) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as watermark
    from pg_stat_get_activity(null)
    where datid = (select oid from pg_database where datname = current_database()) and backend_type = 'client backend';
select "f".*, "c"."name" as "category_name", "c"."type" as "category_type" from "userfields" as "f" left join "userfield_categories" as "c" on "c"."org_id" = "f"."org_id" and "c"."id" = "f"."category_id" where "f"."org_id" = $1 and "c"."type" = $2 order by case "c"."type" when 'public' then 0 when 'private' then 1 else 2 end, "c"."order_index", "f"."order_index", "f"."id" limit 16 offset $3;

-- PUT /api/v5/userfields/{field} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id" from "organizations" where "id" = $1 for no key update;
select "f".*, "c"."name" as "category_name", "c"."type" as "category_type" from "userfields" as "f" left join "userfield_categories" as "c" on "c"."org_id" = "f"."org_id" and "c"."id" = "f"."category_id" where "f"."org_id" = $1 and "f"."id" = $2;
update "userfields" set "required" = $1, "prompt_missing_values" = $2, "updated_date" = $3 where "org_id" = $4 and "id" = $5;
select count(*) as "count" from "userfields" where "org_id" = $1 and "category_id" = $2;
select "f".*, "c"."name" as "category_name", "c"."type" as "category_type" from "userfields" as "f" left join "userfield_categories" as "c" on "c"."org_id" = "f"."org_id" and "c"."id" = "f"."category_id" where "f"."org_id" = $1 and "f"."id" = $2;
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- PUT /api/v5/users/{user}/userfieldvalues → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id", "updated_date" from "users" where "org_id" = $1 and "id" in ($2) order by "id" for update;
select * from "userfields" where "org_id" = $1 and "id" in ($2) for share;
select "userfield_id", "value" from "userfield_values" where "org_id" = $1 and "user_id" = $2 order by "userfield_id";
insert into "userfield_values" ("org_id", "user_id", "userfield_id", "value") select * from unnest($1::text[], $2::text[], $3::text[], $4::text[]) on conflict ("org_id", "user_id", "userfield_id") do update set "value" = excluded."value";
update "users" set "updated_date" = $1 where "org_id" = $2 and "id" = $3;
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- GET /api/v5/users/{user}/userfieldvalues → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" = $2;
select "userfield_id", "value" from "userfield_values" where "org_id" = $1 and "user_id" = $2 order by "userfield_id";

-- POST /api/v5/offeringcategories → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id" from "organizations" where "id" = $1 for no key update;
select "id" from "offering_categories" where "org_id" = $1 and "name_key" = $2;
select count(*) as "count" from "offering_categories" where "org_id" = $1;
select "id", "order_index", "updated_date" from "offering_categories" where ("org_id" = $1 and "order_index" >= $2) order by "order_index";
insert into "offering_categories" ("org_id", "id", "name", "description", "color", "order_index", "created_date", "updated_date", "name_key") values ($1, $2, $3, $4, $5, $6, $7, $8, $9);
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- POST /api/v5/offerings → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id" from "organizations" where "id" = $1 for no key update;
select "id" from "offering_categories" where "org_id" = $1 and "id" in ($2);
select count(*) as "count" from "offerings" where "org_id" = $1;
select "id", "order_index", "updated_date" from "offerings" where ("org_id" = $1 and "order_index" >= $2) order by "order_index";
insert into "offerings" ("org_id", "id", "title", "begin_date", "end_date", "registration_begin_date", "registration_end_date", "catalog_description", "price", "tags", "order_index", "passing_grade", "allow_retake", "created_date", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15);
delete from "offering_category_links" where "org_id" = $1 and "offering_id" = $2;
insert into "offering_category_links" ("org_id", "offering_id", "category_id", "position") values ($1, $2, $3, $4);
select * from "offerings" where "org_id" = $1 and "id" = $2;
select "offering_id", "category_id" from "offering_category_links" where "org_id" = $1 and "offering_id" in ($2) order by "offering_id", "position";
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- GET /api/v5/offerings?userId={user} → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select to_char(min(xact_start) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as watermark
    from pg_stat_get_activity(null)
    where datid = (select oid from pg_database where datname = current_database()) and backend_type = 'client backend';
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" = $2;
select "offerings".* from "offerings" where "offerings"."org_id" = $1 and exists (select "users"."id" from "users" where "users"."org_id" = $2 and "users"."id" = $3 and "users"."active" = $4) and (("offerings"."registration_begin_date" is null or "offerings"."registration_begin_date" <= $5) and ("offerings"."registration_end_date" is null or "offerings"."registration_end_date" >= $6)) and not exists (select "registrations"."id" from "registrations" where "registrations"."org_id" = $7 and "registrations"."user_id" = $8 and "registrations"."offering_id" = "offerings"."id" and ("registrations"."status" = 'active' or ("registrations"."status" in ('passed', 'failed') and "offerings"."allow_retake" = $9))) order by "offerings"."order_index", "offerings"."id" limit 16 offset $10;
select "offering_id", "category_id" from "offering_category_links" where "org_id" = $1 and "offering_id" in ($2) order by "offering_id", "position";

-- POST /api/v5/registrations → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "title", (("offerings"."registration_begin_date" is null or "offerings"."registration_begin_date" <= $1) and ("offerings"."registration_end_date" is null or "offerings"."registration_end_date" >= $2)) as "open" from "offerings" where "org_id" = $3 and "id" = $4 for update;
select "active" from "users" where "org_id" = $1 and "id" = $2 for update;
select "registrations"."status" from "registrations" inner join "offerings" on "offerings"."org_id" = "registrations"."org_id" and "offerings"."id" = "registrations"."offering_id" where "registrations"."org_id" = $1 and "registrations"."user_id" = $2 and "registrations"."offering_id" = $3 and ("registrations"."status" = 'active' or ("registrations"."status" in ('passed', 'failed') and "offerings"."allow_retake" = $4)) order by "registrations"."status";
insert into "registrations" ("org_id", "id", "user_id", "offering_id", "title", "status", "grade", "grader_id", "grader_comment", "created_date", "updated_date", "begin_date", "last_active_date", "end_date") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14);
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- GET /api/v5/registrations?status=active&userId={user} → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select to_char(min(xact_start) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as watermark
    from pg_stat_get_activity(null)
    where datid = (select oid from pg_database where datname = current_database()) and backend_type = 'client backend';
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" = $2;
select * from "registrations" where "org_id" = $1 and "status" = $2 and "user_id" = $3 order by "created_date", "id" limit 16 offset $4;

-- PUT /api/v5/registrations/{registration} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select * from "registrations" where "org_id" = $1 and "id" = $2 for update;
select * from "offerings" where "org_id" = $1 and "id" = $2;
update "registrations" set "status" = $1, "grade" = $2, "end_date" = $3, "updated_date" = $4 where "org_id" = $5 and "id" = $6;
select * from "registrations" where "org_id" = $1 and "id" = $2;
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- GET /api/v5/agreements → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select to_char(min(xact_start) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as watermark
    from pg_stat_get_activity(null)
    where datid = (select oid from pg_database where datname = current_database()) and backend_type = 'client backend';
select * from "agreements" where "org_id" = $1 order by "type" desc limit 16 offset $2;

-- PUT /api/v5/users/{user}/agreements/standard → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id", "updated_date" from "users" where "org_id" = $1 and "id" in ($2) order by "id" for update;
select "agreements".*, "user_agreements"."title" as "agreed_title", "user_agreements"."text" as "agreed_text", "user_agreements"."agreed_date" from "agreements" left join "user_agreements" on "user_agreements"."org_id" = "agreements"."org_id" and "user_agreements"."type" = "agreements"."type" and "user_agreements"."user_id" = $1 where "agreements"."org_id" = $2 and "agreements"."type" = $3 order by "agreements"."type" desc;
insert into "user_agreements" ("org_id", "user_id", "type", "title", "text", "agreed_date") values ($1, $2, $3, $4, $5, $6) on conflict ("org_id", "user_id", "type") do update set "title" = $7, "text" = $8, "agreed_date" = $9;
update "users" set "updated_date" = $1 where "org_id" = $2 and "id" = $3;
select "agreements".*, "user_agreements"."title" as "agreed_title", "user_agreements"."text" as "agreed_text", "user_agreements"."agreed_date" from "agreements" left join "user_agreements" on "user_agreements"."org_id" = "agreements"."org_id" and "user_agreements"."type" = "agreements"."type" and "user_agreements"."user_id" = $1 where "agreements"."org_id" = $2 and "agreements"."type" = $3 order by "agreements"."type" desc;
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;

-- GET /api/v5/users/{user}/agreements → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" = $2;
select "agreements".*, "user_agreements"."title" as "agreed_title", "user_agreements"."text" as "agreed_text", "user_agreements"."agreed_date" from "agreements" left join "user_agreements" on "user_agreements"."org_id" = "agreements"."org_id" and "user_agreements"."type" = "agreements"."type" and "user_agreements"."user_id" = $1 where "agreements"."org_id" = $2 order by "agreements"."type" desc limit 16 offset $3;

-- PUT /api/v5/scimattributes → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id" from "organizations" where "id" = $1 for no key update;
select * from "scim_attribute_mappings" where "org_id" = $1 order by "attribute_key";
select * from "userfields" where "org_id" = $1 and "id" in ($2) for share;
insert into "scim_attribute_mappings" ("org_id", "attribute", "attribute_key", "userfield_id", "created_date") values ($1, $2, $3, $4, $5) on conflict ("org_id", "attribute_key") do update set "attribute" = "excluded"."attribute", "userfield_id" = "excluded"."userfield_id";
commit;

-- POST /scim/v2/Users → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select * from "scim_attribute_mappings" where "org_id" = $1 order by "attribute_key";
select * from "userfields" where "org_id" = $1 and "id" in ($2);
begin;
insert into "users" ("org_id", "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required", "username_key", "email_key", "password_hash") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18);
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" = $2;
select "user_id", "userfield_id", "value" from "userfield_values" where "org_id" = $1 and "user_id" in ($2) and "userfield_id" in ($3);
select "user_id", "emails" from "scim_user_emails" where "org_id" = $1 and "user_id" in ($2);
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values ($1, $2, $3, $4, $5, $6, $7, $8);
delete from "scim_requests" where "org_id" = $1 and "seq" <= (select "seq" from "scim_requests" where "org_id" = $2 order by "seq" desc limit $3 offset $4);

-- GET /scim/v2/Users?filter=userName%20eq%20%22grace%40example.com%22 → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select * from "scim_attribute_mappings" where "org_id" = $1 order by "attribute_key";
select * from "userfields" where "org_id" = $1 and "id" in ($2);
select count(*) as "total" from "users" where "users"."org_id" = $1 and ("users"."username_key" = $2 or ("users"."username_key" is null and "users"."email_key" = $3));
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "users"."org_id" = $1 and ("users"."username_key" = $2 or ("users"."username_key" is null and "users"."email_key" = $3)) order by "created_date", "id" limit $4 offset $5;
select "user_id", "userfield_id", "value" from "userfield_values" where "org_id" = $1 and "user_id" in ($2) and "userfield_id" in ($3);
select "user_id", "emails" from "scim_user_emails" where "org_id" = $1 and "user_id" in ($2);
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values ($1, $2, $3, $4, $5, $6, $7, $8);
delete from "scim_requests" where "org_id" = $1 and "seq" <= (select "seq" from "scim_requests" where "org_id" = $2 order by "seq" desc limit $3 offset $4);

-- POST /api/v5/webhooks → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
insert into "webhooks" ("org_id", "id", "url", "description", "event_types", "secret", "created_date", "updated_date", "failing_since", "disabled_date", "disabled_reason") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11);
commit;

-- PUT /api/v5/users/{user} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" = $2 for update;
update "users" set "first_name" = $1, "updated_date" = $2 where "org_id" = $3 and "id" = $4;
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
insert into "webhook_deliveries" ("org_id", "id", "webhook_id", "event_id", "event_type", "payload", "ordering_key", "status", "attempts", "next_attempt_at", "give_up_at", "created_date", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning "id", "seq";
select d.webhook_id, d.ordering_key
        from unnest($1::varchar[], $2::varchar[],
          $3::bigint[]) as r(webhook_id, ordering_key, seq)
        cross join lateral (select e.org_id, e.id from webhook_deliveries e
          where e.org_id = $4 and e.webhook_id = r.webhook_id and e.ordering_key = r.ordering_key
          and e.status = 'pending' and e.seq < r.seq order by e.seq desc limit 1) last
        join webhook_deliveries d on d.org_id = last.org_id and d.id = last.id
        where d.status = 'pending' for share of d;
commit;

-- PUT /api/v5/webhooks/{webhook} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select * from "webhooks" where "org_id" = $1 and "id" = $2;
begin;
update "webhooks" set "disabled_date" = $1, "disabled_reason" = $2, "updated_date" = $3 where "org_id" = $4 and "id" = $5;
commit;

-- PUT /api/v5/webhooks/{webhook} → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select * from "webhooks" where "org_id" = $1 and "id" = $2;
begin;
update "webhooks" set "disabled_date" = $1, "disabled_reason" = $2, "failing_since" = $3, "updated_date" = $4 where "org_id" = $5 and "id" = $6;
select * from "webhooks" where "org_id" = $1 and "id" = $2;
select count(*) as "count" from "events" as "e" where "e"."org_id" = $1 and "e"."created_date" >= $2 and "e"."type" in ($3) and not exists (select "d"."id" from "webhook_deliveries" as "d" where "d"."org_id" = $4 and "d"."webhook_id" = $5 and "d"."event_id" = "e"."id" and "d"."status" in ($6, $7));
commit;

-- POST /api/v5/webhooks/{webhook}/recover → 202
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select * from "webhooks" where "org_id" = $1 and "id" = $2;
begin;
select "id" from "webhooks" where "org_id" = $1 and "id" = $2 for update;
select "e"."seq", "e"."id", "e"."type", "e"."created_date", "e"."data", "e"."previous_attributes", "e"."actor_type", "e"."actor_id", "e"."actor_name" from "events" as "e" where "e"."org_id" = $1 and "e"."created_date" >= $2 and "e"."type" in ($3) and not exists (select "d"."id" from "webhook_deliveries" as "d" where "d"."org_id" = $4 and "d"."webhook_id" = $5 and "d"."event_id" = "e"."id" and "d"."status" in ($6, $7)) and "e"."seq" > $8 order by "e"."seq" limit $9;
insert into "webhook_deliveries" ("org_id", "id", "webhook_id", "event_id", "event_type", "payload", "ordering_key", "status", "attempts", "next_attempt_at", "give_up_at", "created_date", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning "id", "seq";
select d.webhook_id, d.ordering_key
        from unnest($1::varchar[], $2::varchar[],
          $3::bigint[]) as r(webhook_id, ordering_key, seq)
        cross join lateral (select e.org_id, e.id from webhook_deliveries e
          where e.org_id = $4 and e.webhook_id = r.webhook_id and e.ordering_key = r.ordering_key
          and e.status = 'pending' and e.seq < r.seq order by e.seq desc limit 1) last
        join webhook_deliveries d on d.org_id = last.org_id and d.id = last.id
        where d.status = 'pending' for share of d;
update "webhook_deliveries" set "next_attempt_at" = $1 where "org_id" = $2 and "id" in ($3);
commit;

-- GET /api/v5/events?limit=5 → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select cursor.after_place, cursor.unplaced, page.events_json, page.last_id, page.more
      from (
        select
          (select coalesce(position, 0) from events where org_id = $1 and id = $2) as after_place,
          exists (select seq from events where org_id = $3 and position is null) as unplaced
      ) as cursor
      cross join lateral (
        select
          aggregated.events_json,
          (select id from events where org_id = $4 and position = aggregated.last_position) as last_id,
          exists (select 1 from events where org_id = $5 and position > aggregated.last_position) as more
        from (
          select string_agg(event_json, ',' order by position) as events_json, max(position) as last_position
          from (
            select position, '{"id":"' || "id" || '","type":"' || "type" || '","createdDate":"' || "created_date" || '","organizationId":"' || "org_id" || '"' || case when "actor_type" <> '' then ',"actor":{"type":"' || "actor_type" || '","id":' || coalesce(to_json("actor_id")::text, 'null') || ',"name":' || coalesce(to_json("actor_name")::text, 'null') || '}' else '' end || ',"data":' || "data" || coalesce(',"previousAttributes":' || "previous_attributes", '') || '}' as event_json
            from events
            where org_id = $6 and position > coalesce(nullif(cursor.after_place, 0), $7)
            order by position
            limit $8
          ) as page_events
        ) as aggregated
      ) as page;
select "seq" from "events" where "org_id" = $1 and "position" is null limit $2;
begin;
insert into event_feeds (org_id, last_position) values ($1, 0)
      on conflict (org_id) do update set last_position = event_feeds.last_position;
with ranked as (
        select seq, row_number() over (order by seq) as n from events
        where org_id = $1 and position is null order by seq limit 2000
      ), placed as (
        update events set position = (select last_position from event_feeds where org_id = $2) + ranked.n
        from ranked where events.org_id = $3 and events.seq = ranked.seq
        returning events.position
      )
      update event_feeds set last_position = (select max(position) from placed)
      where org_id = $4 and exists (select 1 from placed);
commit;
select cursor.after_place, cursor.unplaced, page.events_json, page.last_id, page.more
      from (
        select
          (select coalesce(position, 0) from events where org_id = $1 and id = $2) as after_place,
          exists (select seq from events where org_id = $3 and position is null) as unplaced
      ) as cursor
      cross join lateral (
        select
          aggregated.events_json,
          (select id from events where org_id = $4 and position = aggregated.last_position) as last_id,
          exists (select 1 from events where org_id = $5 and position > aggregated.last_position) as more
        from (
          select string_agg(event_json, ',' order by position) as events_json, max(position) as last_position
          from (
            select position, '{"id":"' || "id" || '","type":"' || "type" || '","createdDate":"' || "created_date" || '","organizationId":"' || "org_id" || '"' || case when "actor_type" <> '' then ',"actor":{"type":"' || "actor_type" || '","id":' || coalesce(to_json("actor_id")::text, 'null') || ',"name":' || coalesce(to_json("actor_name")::text, 'null') || '}' else '' end || ',"data":' || "data" || coalesce(',"previousAttributes":' || "previous_attributes", '') || '}' as event_json
            from events
            where org_id = $6 and position > coalesce(nullif(cursor.after_place, 0), $7)
            order by position
            limit $8
          ) as page_events
        ) as aggregated
      ) as page;

-- POST /scim/v2/Groups → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id", "display_name" from "scim_groups" where "org_id" = $1 and "tag_key" = $2;
insert into "scim_groups" ("org_id", "id", "display_name", "tag", "tag_key", "external_id", "created_date", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8);
commit;
select "id", "username", "email", "tags" from "users" where "users"."org_id" = $1 and (users.tags is not null and (' ' || lower("users"."tags") || ' ') like $2 escape '!') order by "created_date", "id";
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values ($1, $2, $3, $4, $5, $6, $7, $8);
delete from "scim_requests" where "org_id" = $1 and "seq" <= (select "seq" from "scim_requests" where "org_id" = $2 order by "seq" desc limit $3 offset $4);

-- POST /scim/v2/Groups → 201
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id", "display_name" from "scim_groups" where "org_id" = $1 and "tag_key" = $2;
insert into "scim_groups" ("org_id", "id", "display_name", "tag", "tag_key", "external_id", "created_date", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8);
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" in ($2) order by "id" for update;
update "users" set "tags" = $1, "updated_date" = $2 where "org_id" = $3 and "id" in ($4);
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
insert into "webhook_deliveries" ("org_id", "id", "webhook_id", "event_id", "event_type", "payload", "ordering_key", "status", "attempts", "next_attempt_at", "give_up_at", "created_date", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning "id", "seq";
select d.webhook_id, d.ordering_key
        from unnest($1::varchar[], $2::varchar[],
          $3::bigint[]) as r(webhook_id, ordering_key, seq)
        cross join lateral (select e.org_id, e.id from webhook_deliveries e
          where e.org_id = $4 and e.webhook_id = r.webhook_id and e.ordering_key = r.ordering_key
          and e.status = 'pending' and e.seq < r.seq order by e.seq desc limit 1) last
        join webhook_deliveries d on d.org_id = last.org_id and d.id = last.id
        where d.status = 'pending' for share of d;
update "webhook_deliveries" set "next_attempt_at" = $1 where "org_id" = $2 and "id" in ($3);
commit;
select "id", "username", "email", "tags" from "users" where "users"."org_id" = $1 and (users.tags is not null and (' ' || lower("users"."tags") || ' ') like $2 escape '!') order by "created_date", "id";
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values ($1, $2, $3, $4, $5, $6, $7, $8);
delete from "scim_requests" where "org_id" = $1 and "seq" <= (select "seq" from "scim_requests" where "org_id" = $2 order by "seq" desc limit $3 offset $4);

-- GET /scim/v2/Groups?excludedAttributes=members → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select count(*) as "total" from "scim_groups" where "scim_groups"."org_id" = $1 and (1 = 1);
select * from "scim_groups" where "scim_groups"."org_id" = $1 and (1 = 1) order by "created_date", "id" limit $2 offset $3;
select "id", "username", "email", "tags" from "users" where "users"."org_id" = $1 and (users.tags is not null and (1 = 1)) order by "created_date", "id";
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values ($1, $2, $3, $4, $5, $6, $7, $8);
delete from "scim_requests" where "org_id" = $1 and "seq" <= (select "seq" from "scim_requests" where "org_id" = $2 order by "seq" desc limit $3 offset $4);

-- GET /scim/v2/Groups/{group} → 200
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select * from "scim_groups" where "org_id" = $1 and "id" = $2;
select "id", "username", "email", "tags" from "users" where "users"."org_id" = $1 and (users.tags is not null and (' ' || lower("users"."tags") || ' ') like $2 escape '!') order by "created_date", "id";
insert into "scim_requests" ("org_id", "method", "path", "status", "duration_ms", "token_id", "user_agent", "created_date") values ($1, $2, $3, $4, $5, $6, $7, $8);
delete from "scim_requests" where "org_id" = $1 and "seq" <= (select "seq" from "scim_requests" where "org_id" = $2 order by "seq" desc limit $3 offset $4);

-- DELETE /api/v5/userfields/{field} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id" from "organizations" where "id" = $1 for no key update;
select "f".*, "c"."name" as "category_name", "c"."type" as "category_type" from "userfields" as "f" left join "userfield_categories" as "c" on "c"."org_id" = "f"."org_id" and "c"."id" = "f"."category_id" where "f"."org_id" = $1 and "f"."id" = $2;
select "user_id", "value" from "userfield_values" where "org_id" = $1 and "userfield_id" = $2;
select "id", "updated_date" from "users" where "org_id" = $1 and "id" in ($2) order by "id" for update;
select "id" from "userfields" where "org_id" = $1 and "id" = $2 for update;
select "user_id", "value" from "userfield_values" where "org_id" = $1 and "userfield_id" = $2;
select "user_id", "userfield_id", "value" from "userfield_values" where "org_id" = $1 and "user_id" in ($2);
update "users" set "updated_date" = $1 where "org_id" = $2 and "id" in ($3);
delete from "userfield_values" where "org_id" = $1 and "userfield_id" = $2 and "user_id" in ($3);
delete from "userfields" where "org_id" = $1 and "id" = $2;
select "id", "order_index", "updated_date" from "userfields" where ("org_id" = $1 and "order_index" >= $2 and "category_id" = $3) order by "order_index";
with "inserted" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]) returning "org_id") select "id", "event_types", "org_id" from "webhooks" where "org_id" in (select "org_id" from "inserted") and "disabled_date" is null;
commit;

-- DELETE /api/v5/offerings/{offering} → 400
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id" from "organizations" where "id" = $1 for no key update;
select * from "offerings" where "org_id" = $1 and "id" = $2 for update;
select "status" from "registrations" where "org_id" = $1 and "offering_id" = $2 for update;
rollback;

-- PUT /api/v5/users/{user} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
select "password_hash" from "users" where "org_id" = $1 and "id" = $2;
begin;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" = $2 for update;
update "users" set "password_hash" = $1, "updated_date" = $2, "sessions_valid_after" = $3 where "org_id" = $4 and "id" = $5;
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
insert into "webhook_deliveries" ("org_id", "id", "webhook_id", "event_id", "event_type", "payload", "ordering_key", "status", "attempts", "next_attempt_at", "give_up_at", "created_date", "updated_date") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning "id", "seq";
select d.webhook_id, d.ordering_key
        from unnest($1::varchar[], $2::varchar[],
          $3::bigint[]) as r(webhook_id, ordering_key, seq)
        cross join lateral (select e.org_id, e.id from webhook_deliveries e
          where e.org_id = $4 and e.webhook_id = r.webhook_id and e.ordering_key = r.ordering_key
          and e.status = 'pending' and e.seq < r.seq order by e.seq desc limit 1) last
        join webhook_deliveries d on d.org_id = last.org_id and d.id = last.id
        where d.status = 'pending' for share of d;
update "webhook_deliveries" set "next_attempt_at" = $1 where "org_id" = $2 and "id" in ($3);
commit;

-- DELETE /api/v5/users/{user} → 204
select "org_id", "id", "name", "token_hash", "scopes", "created_date", "last_used_date", "expires_date", "revoked_date", "client_id" from "access_tokens" where "token_hash" = $1;
begin;
select "id", "email", "created_date", "active", "updated_date", "first_name", "last_name", "username", "tags", "locale", "last_login_date", "account_type", "external_id", "password_change_required" from "users" where "org_id" = $1 and "id" = $2;
delete from "users" where "org_id" = $1 and "id" = $2;
with "event" as (insert into "events" ("org_id", "id", "type", "created_date", "data", "previous_attributes", "resource_id", "actor_type", "actor_id", "actor_name") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "org_id") select "webhooks"."id", "webhooks"."event_types" from "webhooks" where "webhooks"."org_id" = (select "event"."org_id" from "event") and "webhooks"."disabled_date" is null;
commit;
