// Generated from the OpenAPI document by `npm run client:generate`; do not edit.

export interface paths {
    "/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get an access token (client credentials grant, RFC 6749 §4.4)
         * @description Authenticate the client with HTTP Basic (`client_id:client_secret`) or, if it cannot, with `client_id` and `client_secret` in the form. The token expires after `expires_in` seconds and is used like any other: `Authorization: Bearer <token>`.
         */
        post: operations["oauthTokens.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke an access token (RFC 7009)
         * @description Answers 200 with an empty JSON object, also for a token that does not exist or was already revoked; 400 for a token issued to another client.
         */
        post: operations["oauthTokens.revoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description A page of the organization's users, oldest first. Filters combine with AND: `firstName`, `lastName` and `username` match part of the value and `email` the whole address, ignoring case; `tags` the users carrying every tag given; `active=false` the deactivated ones. Filtered by `updatedDate`, the answer carries `Updated-Date-Watermark`, where the next run of a sync job starts.
         */
        get: operations["users.list"];
        put?: never;
        /**
         * Create a user
         * @description Only `email` is required; it is unique in the organization ignoring case, and so is `username` when given (400 "is already in use"). A user created without a password cannot log in until one is set. A tag holding commas or spaces becomes several tags. Answers 201 with the new user's URL in `Location` and no body.
         */
        post: operations["users.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user
         * @description The user, never its password. An id that is not one of the organization's users, another organization's included, is a 404.
         */
        get: operations["users.get"];
        /**
         * Update a user (partial)
         * @description Changes only the properties sent: `tags` replaces the whole list, `active: false` deactivates the user (kept with everything that belongs to it, but no longer registrable). Read-only properties sent back as they were read are ignored. A request that changes nothing writes nothing and leaves `updatedDate` as it was.
         */
        put: operations["users.update"];
        post?: never;
        /**
         * Delete a user and everything that belongs to it
         * @description Deletes the user with its userfield values, agreements and registrations, for good: its id is a 404 afterwards. To keep the history of someone who left, deactivate them instead (`PUT` with `active: false`).
         */
        delete: operations["users.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/userfieldcategories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List userfield categories: public first, then private, each by orderIndex
         * @description A page of the organization's userfield categories. `name` matches part of the name ignoring case, `type` the public or the private ones.
         */
        get: operations["userfieldCategories.list"];
        put?: never;
        /**
         * Create a userfield category
         * @description `name`, unique in the organization ignoring case, and `type` (`public` or `private`) are required. `orderIndex` is its place among the categories of its type, from 0: the ones from there on move down; absent or past the end, it goes last. Answers 201 with its URL in `Location`.
         */
        post: operations["userfieldCategories.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/userfieldcategories/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a userfield category
         * @description The category. An id that is not one of the organization's categories is a 404.
         */
        get: operations["userfieldCategories.get"];
        /**
         * Rename or reorder a userfield category (partial); its type never changes
         * @description Takes `name` and `orderIndex` only. To make fields public or private, move them to a category of the other type. Renaming the category changes the `categoryName` of each of its fields.
         */
        put: operations["userfieldCategories.update"];
        post?: never;
        /**
         * Delete an empty userfield category
         * @description A category that still holds userfields is not deleted: the answer is 400, and the fields must be moved or deleted first. The categories after it move up.
         */
        delete: operations["userfieldCategories.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/userfields": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List userfields by category (public first), then orderIndex; predefined fields in no category last
         * @description A page of the organization's userfields, each with the properties of its type. `categoryType` keeps the fields of public or of private categories; the predefined fields (Street 1, City, Company, ...) that are in no category match neither.
         */
        get: operations["userfields.list"];
        put?: never;
        /**
         * Create a userfield
         * @description Needs a `type`, a `name` (a `message` field a `message` instead) and a category: `categoryId`, or `categoryName`, which creates the category when none has that name (public unless `categoryType: "private"`). A property the type does not have is a 400 "not applicable to type". `orderIndex` places it in its category (last when absent). Answers 201 with its URL in `Location`.
         */
        post: operations["userfields.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/userfields/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a userfield
         * @description The userfield, with the properties of its type only. An id that is not one of the organization's userfields is a 404.
         */
        get: operations["userfields.get"];
        /**
         * Update a userfield (partial): move, rename, required, options, constraints, message, size, orderIndex
         * @description Changes only what is sent. An option left out of `options` is removed, and the values that chose it are cleared; `constraints: {}` removes them all. A predefined field can be placed in a category and moved, never renamed. A refusal is a 400 whose `message` is "name is required", "message is required" or "invalid value", with `fieldErrors`.
         */
        put: operations["userfields.update"];
        post?: never;
        /**
         * Delete a custom userfield with its values, or take a predefined one out of its category
         * @description A custom userfield goes with every user's value of it. A predefined one stays, with its values, outside any category; one that is in no category already is a 400.
         */
        delete: operations["userfields.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{id}/userfieldvalues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a user's userfield values
         * @description One object, userfield id → value, `{}` when the user has none: a string for text, email, date (`mm/dd/yyyy`), dropdown and radiobuttons; `"yes"` or `"no"` for yesno; a number for number and decimal; a boolean for checkbox and truefalse; a list of option names for checkboxes. 404 for a user not in the organization.
         */
        get: operations["userfieldValues.get"];
        /**
         * Set or clear some of a user's userfield values, all or nothing
         * @description `{"<userfield id>": value}` in the shapes `GET` answers, `null` to clear one; fields not named keep their values. When one value is refused (unknown field, a message field, wrong type, an option the field lacks, a constraint) nothing is written, and the 400 names every refused field id in `fieldErrors`.
         */
        put: operations["userfieldValues.replace"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/offeringcategories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List offering categories in list order
         * @description A page of the organization's offering categories, by `orderIndex`. `name` matches part of the name, ignoring case.
         */
        get: operations["offeringCategories.list"];
        put?: never;
        /**
         * Create an offering category
         * @description Beyond v5. `name` is required; `color` is `#rrggbb`. `orderIndex` places it, from 0, the ones from there on moving down; absent or past the end, it goes last. Answers 201 with its URL in `Location`.
         */
        post: operations["offeringCategories.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/offeringcategories/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an offering category
         * @description The category. An id that is not one of the organization's offering categories is a 404.
         */
        get: operations["offeringCategories.get"];
        /**
         * Update an offering category (partial); orderIndex moves it
         * @description Beyond v5. Changes only the properties sent; a new `orderIndex` moves the others to keep the order without gaps.
         */
        put: operations["offeringCategories.update"];
        post?: never;
        /**
         * Delete an offering category; offerings lose it from offeringCategoryIds
         * @description Beyond v5. The offerings stay; each one that listed the category no longer does. The categories after it move up.
         */
        delete: operations["offeringCategories.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/offerings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List offerings in list order; userId lists those open for that user to register
         * @description A page of the organization's offerings, by `orderIndex`. `title` matches part of the title ignoring case, `tag` the offerings carrying every tag given, `offeringCategoryId` those in that category. `userId` keeps the offerings open for registration now that the user may register for: none for a deactivated user, and none the user holds an active registration of (or a finished one, unless retakes are allowed).
         */
        get: operations["offerings.list"];
        put?: never;
        /**
         * Create an offering
         * @description Beyond v5. `title` is required. It is open for registration between `registrationBeginDate` and `registrationEndDate` (a bound left out does not close it); `passingGrade` (70 unless given) decides whether a grade passes. Answers 201 with its URL in `Location`.
         */
        post: operations["offerings.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/offerings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an offering
         * @description The offering. An id that is not one of the organization's offerings is a 404.
         */
        get: operations["offerings.get"];
        /**
         * Update an offering (partial); orderIndex moves it
         * @description Beyond v5. Changes only the properties sent; a new `orderIndex` moves the others to keep the order without gaps. Registrations keep the title the offering had when they were made.
         */
        put: operations["offerings.update"];
        post?: never;
        /**
         * Delete an offering that has no registrations but ejected ones (which go with it)
         * @description Beyond v5. While a registration of it is active, passed or failed, the answer is 400 and nothing is deleted.
         */
        delete: operations["offerings.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/registrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List registrations by creation date
         * @description A page of the organization's registrations, oldest first, filtered by `status`, `userId`, `offeringId` and their dates. A `userId` or `offeringId` that does not exist in the organization is a 400 on that parameter.
         */
        get: operations["registrations.list"];
        put?: never;
        /**
         * Register a user for an offering that is open for registration
         * @description `userId` and `offeringId` are required. A 400 names the property at fault when the user or the offering does not exist, the user is deactivated, the offering is not open for registration now, or the user already holds an active registration of it (or a finished one, and the offering allows no retake); an ejected registration blocks nothing. Answers 201 with its URL in `Location`.
         */
        post: operations["registrations.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/registrations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a registration
         * @description The registration, with the offering's title as it was when the user registered. 404 for an id not in the organization.
         */
        get: operations["registrations.get"];
        /**
         * Eject ({"status": "ejected"}) or grade ({"grade": n}) a registration
         * @description One of two changes. `{"status": "ejected"}` ends an active registration without a grade; a graded or already ejected one answers 400 and stays as it is. `{"grade": n}`, 0 to 100 with an optional `graderComment`, sets `status` to `passed` when `n` reaches the offering's `passingGrade`, else `failed`, and `endDate` when it had none. `{"status": "active"}` on an active registration changes nothing. Anything else is a 400.
         */
        put: operations["registrations.update"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agreements": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the agreements defined: standard, then custom
         * @description The standard agreement, which every organization has, then the custom one once it is defined.
         */
        get: operations["agreements.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/agreements/{type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the standard or custom agreement
         * @description `type` is `standard` or `custom`; the custom agreement is a 404 until it is defined.
         */
        get: operations["agreements.get"];
        /**
         * Define (title and text required the first time) or revise an agreement
         * @description Beyond v5. Defines the agreement, `title` and `text` required, or changes only what is sent of it. The custom agreement is always required: `required: false` on it is a 400. `If-None-Match: *` defines it only if nobody has yet.
         */
        put: operations["agreements.replace"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{id}/agreements": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's agreements: standard, then custom when defined
         * @description Each agreement with `agreed`, and `agreedDate` once the user agreed to its current text. 404 for a user not in the organization.
         */
        get: operations["userAgreements.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{id}/agreements/{type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's agreement to the standard or custom agreement
         * @description The agreement's `title` and `text`, with `agreed` and, once agreed, `agreedDate`. 404 for the custom agreement until it is defined.
         */
        get: operations["userAgreements.get"];
        /**
         * Record that the user agrees (to the current text) or no longer agrees
         * @description `{"agreed": true}` records the agreement to the current text, with the time; `false` withdraws it. Answers 204.
         */
        put: operations["userAgreements.replace"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/scimattributes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * SCIM attributes mapped onto userfields
         * @description Beyond v5. SCIM attribute → userfield id: what an identity provider sends of these attributes is stored as the user's value of that field.
         */
        get: operations["scimAttributes.get"];
        /**
         * Map SCIM attributes onto userfields (null removes a mapping), all or nothing
         * @description Beyond v5. `{"<SCIM attribute>": "<userfield id>"}`: the enterprise extension, core attributes the server does not store, typed entries (`phoneNumbers[type eq "work"].value`) and the organization's own extension; `null` removes a mapping, and attributes not named keep theirs. One refused entry refuses them all (400).
         */
        put: operations["scimAttributes.replace"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Beyond v5. The changes of the organization in the order they committed, kept for a retention period (30 days by default)
         * @description Each event holds the resource as the API answers it after the change (`data`; as it was, for a deletion) and, for an update, the previous value of what changed (`previousAttributes`). Keep the id of the last event read and ask for `after` it: nothing that commits later is listed before it, and `next` is there while more follow. An `after` older than the retention is a 400: start over from the `updatedDate` lists.
         */
        get: operations["events.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Beyond v5. List webhooks
         * @description A page of the organization's webhooks, oldest first, never with their secrets.
         */
        get: operations["webhooks.list"];
        put?: never;
        /**
         * Beyond v5. Create a webhook: the answer holds its signing secret, shown this once
         * @description `url` must be https to a public address, checked again at every delivery; `events` names the event types it receives. Each delivery is a POST signed per Standard Webhooks with `secret` (`whsec_...`), retried with back-off for 24 hours until the receiver answers 2xx. A retry with the same Idempotency-Key answers the webhook without its secret, which is kept nowhere else: a client that lost it deletes the webhook and creates it again.
         */
        post: operations["webhooks.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Beyond v5. Get a webhook
         * @description The webhook without its secret; `disabled` and `disabledReason` tell when every attempt failed for 24 hours.
         */
        get: operations["webhooks.get"];
        /**
         * Beyond v5. Update a webhook (partial); disabled: false enables it again, and the answer (200) counts the events it missed meanwhile
         * @description Changes only what is sent, and answers 204. Enabling a disabled webhook answers 200 instead, with the webhook, `missedEvents` and `recover`, the request that queues what it missed. To keep each resource's order, recover while it is still disabled, then enable it.
         */
        put: operations["webhooks.update"];
        post?: never;
        /**
         * Beyond v5. Delete a webhook and its deliveries
         * @description Nothing more is sent to it, pending deliveries included.
         */
        delete: operations["webhooks.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Beyond v5. Send a webhook.ping event to the webhook now
         * @description Answers 202 with the delivery, queued; its attempts show in the deliveries list. A disabled webhook is a 400: enable it first.
         */
        post: operations["webhooks.test"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Beyond v5. Queue again the events since a moment that the webhook missed (made while it was disabled) or whose delivery failed for good
         * @description Queues every event of the feed since `since` (included) of the types the webhook receives that it has no pending or successful delivery of, in the order of the feed, after the deliveries already queued. `since` may precede the webhook, never the retention of events nor now. Answers 202 with the count queued.
         */
        post: operations["webhooks.recover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Beyond v5. The deliveries to the webhook, newest first, each with its attempts
         * @description Each delivery's event, state and every attempt with the receiver's status or the error. 404 for a webhook not in the organization.
         */
        get: operations["webhookDeliveries.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/deliveries/{deliveryId}/resend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Beyond v5. Send a delivery again now, with the same webhook-id, and retry it for another day
         * @description Answers 202 with the delivery, queued again under its first `webhook-id`, which tells a receiver it is a repeat. A disabled webhook is a 400: enable it first.
         */
        post: operations["webhookDeliveries.resend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/imports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Beyond v5. Import users from a file (the request body), in the background: 202 with the job to follow
         * @description The body is the file: text/csv or text/tab-separated-values (UTF-8, UTF-16, Windows-1252; comma, semicolon or tab) or JSON Lines (application/x-ndjson) or an Excel workbook (application/vnd.openxmlformats-officedocument.spreadsheetml.sheet; sheet names one), at most 64 MiB. The options are those of the command line. A file beyond what an import reads (a workbook unpacking to more than 96 MiB of XML, more than 1,048,576 rows or 16,777,216 filled cells) is refused with 413 before anything starts. GET the Location until the state is no longer running.
         */
        post: operations["imports.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/imports/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Beyond v5. Get an import: its state, counts and the problems of its rows
         * @description `state` is `running` until the import `succeeded`, was `refused` (problems in rows, or more changes than `maxChanges`: nothing was written) or `failed`. `problems` lists each refused row with its column and field.
         */
        get: operations["imports.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        User: {
            id: string;
            firstName?: string;
            lastName?: string;
            username?: string;
            email: string;
            tags?: string[];
            locale?: string;
            /**
             * @description When the user was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Last login, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            lastLoginDate?: string;
            /** @description Beyond v5. False while the user is deactivated (by an identity provider through SCIM, or by PUT): nothing is deleted, but the user cannot be registered for offerings until reactivated */
            active: boolean;
            /**
             * @description Beyond v5. When the user, its tags included, last changed, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
            /**
             * @description Beyond v5. What the person administers in the console; absent for a learner
             * @enum {string}
             */
            accountType?: "courseAdministrator" | "organizationAdministrator";
        };
        UserfieldCategory: {
            id: string;
            /**
             * @description public: visible to and editable by the user; private: administrators only
             * @enum {string}
             */
            type: "public" | "private";
            name: string;
            /** @description Zero-based position among the categories of its type */
            orderIndex: number;
            /**
             * @description When the category was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /**
         * @description Which properties each type has (besides id, type, createdDate, updatedDate and its category and orderIndex):
         *     - text, email: name, localizedNames, required, constraints (minimumLength, maximumLength), size
         *     - number, decimal: name, localizedNames, required, constraints (minimumValue, maximumValue), size
         *     - date: name, localizedNames, required, constraints (minimumDate, maximumDate), size
         *     - dropdown, radiobuttons, checkboxes: name, localizedNames, required, options
         *     - checkbox: name, localizedNames
         *     - truefalse, yesno: name, localizedNames, required
         *     - message: message
         */
        Userfield: components["schemas"]["UserfieldText"] | components["schemas"]["UserfieldNumber"] | components["schemas"]["UserfieldDecimal"] | components["schemas"]["UserfieldEmail"] | components["schemas"]["UserfieldDate"] | components["schemas"]["UserfieldDropdown"] | components["schemas"]["UserfieldRadiobuttons"] | components["schemas"]["UserfieldCheckbox"] | components["schemas"]["UserfieldCheckboxes"] | components["schemas"]["UserfieldTruefalse"] | components["schemas"]["UserfieldYesno"] | components["schemas"]["UserfieldMessage"];
        OfferingCategory: {
            id: string;
            name: string;
            description?: string;
            /** @description Hex colour #rrggbb */
            color?: string;
            /** @description Zero-based position in the organization's list */
            orderIndex: number;
            /**
             * @description When the category was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        Offering: {
            id: string;
            title: string;
            /**
             * @description When the offering was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
            /**
             * @description Start of the offering, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            beginDate?: string;
            /**
             * @description End of the offering, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            endDate?: string;
            /**
             * @description Registration opens, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            registrationBeginDate?: string;
            /**
             * @description Registration closes, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            registrationEndDate?: string;
            catalogDescription?: string;
            price?: number;
            offeringCategoryIds?: string[];
            tags?: string[];
            /** @description Zero-based position in the organization's list */
            orderIndex: number;
            passingGrade: number;
            allowRetake: boolean;
        };
        Registration: {
            id: string;
            userId: string;
            offeringId: string;
            /** @description The offering's title when the registration was made */
            title: string;
            /**
             * @description active, passed, failed, ejected
             * @enum {string}
             */
            status: "active" | "passed" | "failed" | "ejected";
            /** @description 0-100 */
            grade?: number;
            graderId?: string;
            graderComment?: string;
            /**
             * @description When the registration was made, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
            /**
             * @description When the registration began, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            beginDate: string;
            /**
             * @description Last activity, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            lastActiveDate?: string;
            /**
             * @description When the registration ended (ejected or graded), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            endDate?: string;
        };
        Agreement: {
            /**
             * @description standard or custom
             * @enum {string}
             */
            type: "standard" | "custom";
            title: string;
            text: string;
            /**
             * @description When the agreement was defined, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Last revision, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate?: string;
            /** @description Whether users must agree; always true for custom */
            required: boolean;
        };
        UserAgreement: {
            /**
             * @description standard or custom
             * @enum {string}
             */
            type: "standard" | "custom";
            /** @description Once agreed, the title the user agreed to */
            title: string;
            /** @description Once agreed, the text the user agreed to, even if the agreement was revised since */
            text: string;
            /**
             * @description When the agreement was defined, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            agreed: boolean;
            /**
             * @description When the user agreed; absent while not agreed, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            agreedDate?: string;
        };
        Event: {
            /** @description Unique; also the webhook-id of its webhook deliveries, and the cursor that reads on after it */
            id: string;
            /**
             * @description What happened
             * @enum {string}
             */
            type: "user.created" | "user.updated" | "user.deleted" | "userfield.created" | "userfield.updated" | "userfield.deleted" | "userfieldcategory.created" | "userfieldcategory.updated" | "userfieldcategory.deleted" | "userfieldvalues.updated" | "registration.created" | "registration.ejected" | "registration.graded" | "agreement.updated" | "useragreement.updated" | "offering.created" | "offering.updated" | "offering.deleted" | "offeringcategory.created" | "offeringcategory.updated" | "offeringcategory.deleted";
            /**
             * @description When the change committed, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            organizationId: string;
            actor?: {
                /**
                 * @description How the change was made: `token` (an API token), `oauthClient` (a token issued to an OAuth client), `scim` (a token through /scim/v2), `person` (someone signed in, in the console or on their own pages), `import` (an import of a file), `commandLine` (the server's command line), `operator` (the server's operator, on its pages), `server` (the server itself)
                 * @enum {string}
                 */
                type: "token" | "oauthClient" | "scim" | "person" | "import" | "commandLine" | "operator" | "server";
                /** @description The token's, OAuth client's, person's (user id) or import job's id; null for the command line and the server */
                id: string | null;
                /** @description What it was known by then: the token's or client's name, the person's email, for an import who started it. Never a secret */
                name: string | null;
            };
            /** @description The resource as the API returns it after the change; for a deletion, as it was before (a tombstone). userfieldvalues.updated: {userId, values, updatedDate}; useragreement.updated: the user agreement with its userId and updatedDate (a user's values and agreements are part of the user: updatedDate is the user's) */
            data: {
                [key: string]: unknown;
            };
            /** @description Update events only: the value before the change of every property that changed (null where it was absent), so that a consumer can tell what changed. An update that changes nothing records no event */
            previousAttributes?: {
                [key: string]: unknown;
            };
        };
        Webhook: {
            id: string;
            url: string;
            events: ("user.created" | "user.updated" | "user.deleted" | "userfield.created" | "userfield.updated" | "userfield.deleted" | "userfieldcategory.created" | "userfieldcategory.updated" | "userfieldcategory.deleted" | "userfieldvalues.updated" | "registration.created" | "registration.ejected" | "registration.graded" | "agreement.updated" | "useragreement.updated" | "offering.created" | "offering.updated" | "offering.deleted" | "offeringcategory.created" | "offeringcategory.updated" | "offeringcategory.deleted")[];
            description?: string;
            /** @description True after every attempt failed for 24 hours, or when disabled by PUT; nothing is delivered meanwhile */
            disabled: boolean;
            disabledReason?: string;
            /**
             * @description When it was disabled, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            disabledDate?: string;
            /**
             * @description When the webhook was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description When it last changed, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        WebhookDelivery: {
            id: string;
            /** @description The webhook-id header: the same on every attempt and resend */
            eventId: string;
            /** @description An event type, or webhook.ping for a test */
            eventType: string;
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed";
            /** @description While pending: when the next attempt is due (UTC, with milliseconds); absent while it waits for an earlier delivery of the same resource to succeed or fail for good */
            nextAttemptDate?: string;
            /**
             * @description When the delivery was queued, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            attempts: {
                attempt: number;
                /**
                 * @description When the attempt began, UTC yyyy-mm-ddThh:mm:ssZ
                 * @example 2013-10-23T00:48:50Z
                 */
                attemptedDate: string;
                durationMs: number;
                /** @description The receiver's HTTP status */
                statusCode?: number;
                /** @description Why no answer came (timeout, refused address, connection error) */
                error?: string;
                /** @description The start of the receiver's answer */
                responseBody?: string;
            }[];
        };
        /** Text userfield */
        UserfieldText: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "text";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            required?: boolean;
            constraints?: {
                minimumLength?: number;
                maximumLength?: number;
            };
            /** @enum {string} */
            size?: "small" | "medium" | "mediumlarge" | "large";
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Number userfield */
        UserfieldNumber: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "number";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            required?: boolean;
            constraints?: {
                minimumValue?: number;
                maximumValue?: number;
            };
            /** @enum {string} */
            size?: "small" | "medium" | "mediumlarge" | "large";
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Decimal userfield */
        UserfieldDecimal: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "decimal";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            required?: boolean;
            constraints?: {
                minimumValue?: number;
                maximumValue?: number;
            };
            /** @enum {string} */
            size?: "small" | "medium" | "mediumlarge" | "large";
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Email userfield */
        UserfieldEmail: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "email";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            required?: boolean;
            constraints?: {
                minimumLength?: number;
                maximumLength?: number;
            };
            /** @enum {string} */
            size?: "small" | "medium" | "mediumlarge" | "large";
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Date userfield */
        UserfieldDate: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "date";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            required?: boolean;
            constraints?: {
                minimumDate?: string;
                maximumDate?: string;
            };
            /** @enum {string} */
            size?: "small" | "medium" | "mediumlarge" | "large";
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Dropdown userfield */
        UserfieldDropdown: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "dropdown";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            required?: boolean;
            options?: {
                name: string;
                selected: boolean;
            }[];
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Radiobuttons userfield */
        UserfieldRadiobuttons: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "radiobuttons";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            required?: boolean;
            options?: {
                name: string;
                selected: boolean;
            }[];
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Checkbox userfield */
        UserfieldCheckbox: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "checkbox";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Checkboxes userfield */
        UserfieldCheckboxes: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "checkboxes";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            required?: boolean;
            options?: {
                name: string;
                selected: boolean;
            }[];
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Truefalse userfield */
        UserfieldTruefalse: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "truefalse";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            required?: boolean;
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Yesno userfield */
        UserfieldYesno: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "yesno";
            name?: string;
            localizedNames?: {
                [key: string]: string;
            };
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            required?: boolean;
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** Message userfield */
        UserfieldMessage: {
            id: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "message";
            /** @description Zero-based position within its category */
            orderIndex?: number;
            /** @description Absent for a predefined field in no category */
            categoryId?: string;
            categoryName?: string;
            /**
             * @description The visibility of its category
             * @enum {string}
             */
            categoryType?: "public" | "private";
            message?: string;
            /** @description Present (true) on predefined fields only */
            readOnly?: boolean;
            /**
             * @description When the field was created, UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            createdDate: string;
            /**
             * @description Beyond v5. Set on creation and on every change (a change of its position in a list included), UTC yyyy-mm-ddThh:mm:ssZ
             * @example 2013-10-23T00:48:50Z
             */
            updatedDate: string;
        };
        /** New Text userfield */
        NewUserfieldText: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "text";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            required?: boolean;
            /** @description text, email: lengths; number, decimal: values; date: mm/dd/yyyy. A minimum never exceeds its maximum. On update the object replaces the old one; {} clears them all */
            constraints?: {
                minimumLength?: number;
                maximumLength?: number;
            };
            /**
             * @description Width of the entry; default medium
             * @enum {string}
             */
            size?: "small" | "medium" | "mediumlarge" | "large";
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Number userfield */
        NewUserfieldNumber: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "number";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            required?: boolean;
            /** @description text, email: lengths; number, decimal: values; date: mm/dd/yyyy. A minimum never exceeds its maximum. On update the object replaces the old one; {} clears them all */
            constraints?: {
                minimumValue?: number;
                maximumValue?: number;
            };
            /**
             * @description Width of the entry; default medium
             * @enum {string}
             */
            size?: "small" | "medium" | "mediumlarge" | "large";
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Decimal userfield */
        NewUserfieldDecimal: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "decimal";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            required?: boolean;
            /** @description text, email: lengths; number, decimal: values; date: mm/dd/yyyy. A minimum never exceeds its maximum. On update the object replaces the old one; {} clears them all */
            constraints?: {
                minimumValue?: number;
                maximumValue?: number;
            };
            /**
             * @description Width of the entry; default medium
             * @enum {string}
             */
            size?: "small" | "medium" | "mediumlarge" | "large";
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Email userfield */
        NewUserfieldEmail: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "email";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            required?: boolean;
            /** @description text, email: lengths; number, decimal: values; date: mm/dd/yyyy. A minimum never exceeds its maximum. On update the object replaces the old one; {} clears them all */
            constraints?: {
                minimumLength?: number;
                maximumLength?: number;
            };
            /**
             * @description Width of the entry; default medium
             * @enum {string}
             */
            size?: "small" | "medium" | "mediumlarge" | "large";
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Date userfield */
        NewUserfieldDate: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "date";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            required?: boolean;
            /** @description text, email: lengths; number, decimal: values; date: mm/dd/yyyy. A minimum never exceeds its maximum. On update the object replaces the old one; {} clears them all */
            constraints?: {
                minimumDate?: string;
                maximumDate?: string;
            };
            /**
             * @description Width of the entry; default medium
             * @enum {string}
             */
            size?: "small" | "medium" | "mediumlarge" | "large";
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Dropdown userfield */
        NewUserfieldDropdown: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "dropdown";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            required?: boolean;
            /** @description dropdown, radiobuttons, checkboxes: names unique (case-insensitive); at most one selected except for checkboxes. On update the list replaces the old one */
            options: {
                name: string;
                /** @description Chosen by default */
                selected?: boolean;
            }[];
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Radiobuttons userfield */
        NewUserfieldRadiobuttons: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "radiobuttons" | "radios";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            required?: boolean;
            /** @description dropdown, radiobuttons, checkboxes: names unique (case-insensitive); at most one selected except for checkboxes. On update the list replaces the old one */
            options: {
                name: string;
                /** @description Chosen by default */
                selected?: boolean;
            }[];
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Checkbox userfield */
        NewUserfieldCheckbox: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "checkbox";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Checkboxes userfield */
        NewUserfieldCheckboxes: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "checkboxes";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            required?: boolean;
            /** @description dropdown, radiobuttons, checkboxes: names unique (case-insensitive); at most one selected except for checkboxes. On update the list replaces the old one */
            options: {
                name: string;
                /** @description Chosen by default */
                selected?: boolean;
            }[];
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Truefalse userfield */
        NewUserfieldTruefalse: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "truefalse";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            required?: boolean;
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Yesno userfield */
        NewUserfieldYesno: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "yesno";
            name: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
            localizedNames?: {
                [key: string]: string;
            };
            required?: boolean;
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /** New Message userfield */
        NewUserfieldMessage: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "message";
            /** @description message fields only */
            message: string;
            /**
             * @description Type of the category that an unknown categoryName creates (default public); must match an existing one
             * @enum {string}
             */
            categoryType?: "public" | "private";
            /** @description The category to place the field in */
            categoryId?: string;
            /** @description The category to place the field in, by name (case-insensitive) */
            categoryName?: string;
            /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
            orderIndex?: number;
            /** @description Read-only; ignored on input. */
            readonly id?: unknown;
            /** @description Read-only; ignored on input. */
            readonly createdDate?: unknown;
            /** @description Read-only; ignored on input. */
            readonly readOnly?: unknown;
            /** @description Read-only; ignored on input. */
            readonly updatedDate?: unknown;
        } | unknown | unknown;
        /**
         * Validation errors
         * @description A refused request (400)
         */
        ValidationErrors: {
            message?: string;
            fieldErrors?: {
                [key: string]: string;
            };
            errors?: string[];
        };
        /**
         * Errors
         * @description Any other refusal; 401 and 403 also carry the RFC 6750 `error` and `error_description`
         */
        Errors: {
            errors: string[];
            error?: string;
            error_description?: string;
        };
    };
    responses: {
        /** @description The request is refused: `fieldErrors` names each invalid property */
        BadRequest: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ValidationErrors"];
            };
        };
        /** @description No valid access token */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
            };
        };
        /** @description The token lacks the operation's scope, or HTTPS is required */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
            };
        };
        /** @description No resource exists with the given id */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
            };
        };
        /** @description The Accept header excludes application/json */
        NotAcceptable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
            };
        };
        /** @description Another request with the same Idempotency-Key is still being processed; retry after Retry-After */
        IdempotencyKeyInUse: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
            };
        };
        /** @description The request body exceeds the size limit */
        PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
            };
        };
        /** @description A request body must be sent as application/json */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
            };
        };
        /** @description The rate limit is spent */
        TooManyRequests: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
            };
        };
        /** @description An unexpected error (a bug; the request id finds it in the logs) */
        InternalError: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
            };
        };
        /** @description The database is out of reach; try again */
        Unavailable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Errors"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description Identifies the request in the server logs; on every response */
        "X-Request-Id": string;
        /** @description The URL of the new item; its last segment is the id */
        Location: string;
        /** @description Requests allowed per window (when rate limits are configured) */
        "RateLimit-Limit": number;
        /** @description Requests left in the current window */
        "RateLimit-Remaining": number;
        /** @description Seconds until the window frees a request */
        "RateLimit-Reset": number;
        /** @description Seconds to wait before trying again */
        "Retry-After": number;
        /** @description Beyond v5. The strong entity tag of the item as answered: send it back in If-None-Match (GET) or If-Match (PUT, DELETE) */
        ETag: string;
        /** @description The Bearer challenge, with the error and the scope missing */
        "WWW-Authenticate": string;
        /** @description Beyond v5. Every change with an earlier updatedDate had committed before this list was read, and every change it could not show yet carries this time or a later one: the next run of a sync job asks for `updatedDate=<this>/..` and misses nothing. Keep the one of the first page of a run */
        "Updated-Date-Watermark": string;
        /** @description `true` when the answer is the one given to an earlier request with the same Idempotency-Key */
        "Idempotent-Replayed": "true";
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "oauthTokens.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    /** @description client_credentials */
                    grant_type?: string;
                    /** @description Space-separated, among read, write, scim; narrows the client's scopes (default: all of them) */
                    scope?: string;
                    /** @description With client_secret_post only; prefer HTTP Basic */
                    client_id?: string;
                    /** @description With client_secret_post only; prefer HTTP Basic */
                    client_secret?: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Opaque; send it as `Authorization: Bearer <token>` to /api/v5 */
                        access_token: string;
                        /** @enum {string} */
                        token_type: "Bearer";
                        /** @description Seconds until it expires */
                        expires_in: number;
                        /** @description Space-separated, among read, write, scim */
                        scope: string;
                    };
                };
            };
            /** @description RFC 6749 §5.2 */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description invalid_request, invalid_client, unauthorized_client, unsupported_grant_type or invalid_scope */
                        error: string;
                        error_description?: string;
                    };
                };
            };
            /** @description RFC 6749 §5.2 */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description invalid_request, invalid_client, unauthorized_client, unsupported_grant_type or invalid_scope */
                        error: string;
                        error_description?: string;
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "oauthTokens.revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    /** @description The access token to revoke (required) */
                    token?: string;
                    /** @description access_token (the only kind this server issues) */
                    token_type_hint?: string;
                    /** @description With client_secret_post only; prefer HTTP Basic */
                    client_id?: string;
                    /** @description With client_secret_post only; prefer HTTP Basic */
                    client_secret?: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Revoked, or unknown */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description RFC 6749 §5.2 */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description invalid_request, invalid_client, unauthorized_client, unsupported_grant_type or invalid_scope */
                        error: string;
                        error_description?: string;
                    };
                };
            };
            /** @description RFC 6749 §5.2 */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description invalid_request, invalid_client, unauthorized_client, unsupported_grant_type or invalid_scope */
                        error: string;
                        error_description?: string;
                    };
                };
            };
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "users.list": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                /** @description Exact match, case-insensitive */
                email?: string;
                /** @description Substring, case-insensitive */
                firstName?: string;
                /** @description Substring, case-insensitive */
                lastName?: string;
                /** @description Substring, case-insensitive */
                username?: string;
                /** @description Tags separated by commas or spaces; a user matches when it has all of them */
                tags?: string;
                /** @description Beyond v5. true: active users only; false: deactivated users only */
                active?: boolean;
                /** @description Creation date: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                createdDate?: string;
                /** @description Beyond v5. Date of the last change: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                updatedDate?: string;
                /** @description Last login date: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                lastLoginDate?: string;
                /** @description Beyond v5. Users of this kind of account only */
                accountType?: "learner" | "courseAdministrator" | "organizationAdministrator";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Updated-Date-Watermark": components["headers"]["Updated-Date-Watermark"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["User"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "users.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "jane.doe@example.com",
                 *       "firstName": "Jane",
                 *       "lastName": "Doe",
                 *       "locale": "en-US"
                 *     }
                 */
                "application/json": {
                    /**
                     * @description Login email, unique in the organization (case-insensitive)
                     * @example jane.doe@example.com
                     */
                    email: string;
                    /**
                     * Format: password
                     * @description Write-only. minLength (the server's PASSWORD_MIN_LENGTH, 6 by default) to 64 characters, with at least one letter and one number
                     */
                    password?: string;
                    /** @description First name */
                    firstName?: string;
                    /** @description Last name */
                    lastName?: string;
                    /** @description Unique in the organization (case-insensitive) */
                    username?: string;
                    /** @description Entries holding commas or spaces are split into several tags; duplicates are dropped */
                    tags?: string[];
                    /** @description ISO 639-1 language code, optionally -REGION */
                    locale?: string;
                    /** @description Beyond v5. False deactivates the user, true reactivates it; nothing is lost either way */
                    active?: boolean;
                    /**
                     * @description Beyond v5. `learner` (the default), `courseAdministrator` (manages offerings and registrations in the console) or `organizationAdministrator` (manages everything of the organization in the console)
                     * @enum {string}
                     */
                    accountType?: "learner" | "courseAdministrator" | "organizationAdministrator";
                    /** @description Beyond v5, write-only. true: the person must choose a new password at their next sign-in (for a temporary password set by an administrator); false withdraws the request */
                    requirePasswordChange?: boolean;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly lastLoginDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description Created; the Location header holds the URL of the new item */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "users.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "users.update": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Login email, unique in the organization (case-insensitive)
                     * @example jane.doe@example.com
                     */
                    email?: string;
                    /**
                     * Format: password
                     * @description Write-only. minLength (the server's PASSWORD_MIN_LENGTH, 6 by default) to 64 characters, with at least one letter and one number
                     */
                    password?: string;
                    /** @description First name */
                    firstName?: string | null;
                    /** @description Last name */
                    lastName?: string | null;
                    /** @description Unique in the organization (case-insensitive) */
                    username?: string | null;
                    /** @description Entries holding commas or spaces are split into several tags; duplicates are dropped */
                    tags?: string[] | null;
                    /** @description ISO 639-1 language code, optionally -REGION */
                    locale?: string | null;
                    /** @description Beyond v5. False deactivates the user, true reactivates it; nothing is lost either way */
                    active?: boolean;
                    /**
                     * @description Beyond v5. `learner` (the default), `courseAdministrator` (manages offerings and registrations in the console) or `organizationAdministrator` (manages everything of the organization in the console)
                     * @enum {string|null}
                     */
                    accountType?: "learner" | "courseAdministrator" | "organizationAdministrator" | null;
                    /** @description Beyond v5, write-only. true: the person must choose a new password at their next sign-in (for a temporary password set by an administrator); false withdraws the request */
                    requirePasswordChange?: boolean;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly lastLoginDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "users.delete": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfieldCategories.list": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                /** @description Substring, case-insensitive */
                name?: string;
                /** @description Only categories of this type */
                type?: "public" | "private";
                /** @description Creation date: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                createdDate?: string;
                /** @description Beyond v5. Date of the last change: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                updatedDate?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Updated-Date-Watermark": components["headers"]["Updated-Date-Watermark"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["UserfieldCategory"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfieldCategories.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the organization (case-insensitive) */
                    name: string;
                    /**
                     * @description Fixed for the life of the category
                     * @enum {string}
                     */
                    type: "public" | "private";
                    /** @description Position among the categories of its type; omitted or beyond the end: the end */
                    orderIndex?: number;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description Created; the Location header holds the URL of the new item */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfieldCategories.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserfieldCategory"];
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfieldCategories.update": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the organization (case-insensitive) */
                    name?: string;
                    /**
                     * @description Never changes: accepted only when equal to the current type
                     * @enum {string}
                     */
                    type?: "public" | "private";
                    /** @description New position among the categories of its type; beyond the end: the end */
                    orderIndex?: number;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfieldCategories.delete": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfields.list": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                /** @description Creation date: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                createdDate?: string;
                /** @description Beyond v5. Date of the last change: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                updatedDate?: string;
                /** @description Only fields in categories of this type (predefined fields in no category match neither) */
                categoryType?: "public" | "private";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Updated-Date-Watermark": components["headers"]["Updated-Date-Watermark"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["Userfield"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfields.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /**
         * @description categoryId or categoryName is required; an unknown categoryName creates the category.
         *
         *     Which properties each type has (besides id, type, createdDate, updatedDate and its category and orderIndex):
         *     - text, email: name, localizedNames, required, constraints (minimumLength, maximumLength), size
         *     - number, decimal: name, localizedNames, required, constraints (minimumValue, maximumValue), size
         *     - date: name, localizedNames, required, constraints (minimumDate, maximumDate), size
         *     - dropdown, radiobuttons, checkboxes: name, localizedNames, required, options
         *     - checkbox: name, localizedNames
         *     - truefalse, yesno: name, localizedNames, required
         *     - message: message
         */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "text",
                 *       "name": "Employee number",
                 *       "categoryName": "Employment"
                 *     }
                 */
                "application/json": components["schemas"]["NewUserfieldText"] | components["schemas"]["NewUserfieldNumber"] | components["schemas"]["NewUserfieldDecimal"] | components["schemas"]["NewUserfieldEmail"] | components["schemas"]["NewUserfieldDate"] | components["schemas"]["NewUserfieldDropdown"] | components["schemas"]["NewUserfieldRadiobuttons"] | components["schemas"]["NewUserfieldCheckbox"] | components["schemas"]["NewUserfieldCheckboxes"] | components["schemas"]["NewUserfieldTruefalse"] | components["schemas"]["NewUserfieldYesno"] | components["schemas"]["NewUserfieldMessage"];
            };
        };
        responses: {
            /** @description Created; the Location header holds the URL of the new item */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfields.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /**
             * @description Which properties each type has (besides id, type, createdDate, updatedDate and its category and orderIndex):
             *     - text, email: name, localizedNames, required, constraints (minimumLength, maximumLength), size
             *     - number, decimal: name, localizedNames, required, constraints (minimumValue, maximumValue), size
             *     - date: name, localizedNames, required, constraints (minimumDate, maximumDate), size
             *     - dropdown, radiobuttons, checkboxes: name, localizedNames, required, options
             *     - checkbox: name, localizedNames
             *     - truefalse, yesno: name, localizedNames, required
             *     - message: message
             */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Userfield"];
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfields.update": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description Partial: what is not sent keeps its value. categoryId or categoryName moves the field to another category (the end unless orderIndex is sent); an unknown categoryName creates the category, as on create. A predefined field keeps its name. */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Never changes: ignored when equal to the current type
                     * @enum {string}
                     */
                    type?: "text" | "number" | "decimal" | "email" | "date" | "dropdown" | "radiobuttons" | "checkbox" | "checkboxes" | "truefalse" | "yesno" | "message" | "radios";
                    name?: string | null;
                    /** @description message fields only */
                    message?: string | null;
                    /**
                     * @description Type of the category that an unknown categoryName creates (default public); otherwise must match the category the field is (or moves) in
                     * @enum {string}
                     */
                    categoryType?: "public" | "private";
                    /** @description Label per locale (ISO 639-1, optionally -REGION); {} clears them */
                    localizedNames?: {
                        [key: string]: string;
                    };
                    required?: boolean;
                    /** @description dropdown, radiobuttons, checkboxes: names unique (case-insensitive); at most one selected except for checkboxes. On update the list replaces the old one */
                    options?: {
                        name: string;
                        /** @description Chosen by default */
                        selected?: boolean;
                    }[];
                    /** @description text, email: lengths; number, decimal: values; date: mm/dd/yyyy. A minimum never exceeds its maximum. On update the object replaces the old one; {} clears them all */
                    constraints?: {
                        minimumLength?: number;
                        maximumLength?: number;
                        minimumValue?: number;
                        maximumValue?: number;
                        minimumDate?: string;
                        maximumDate?: string;
                    };
                    /**
                     * @description Width of the entry; default medium
                     * @enum {string}
                     */
                    size?: "small" | "medium" | "mediumlarge" | "large";
                    /** @description The category to place the field in */
                    categoryId?: string;
                    /** @description The category to place the field in, by name (case-insensitive) */
                    categoryName?: string;
                    /** @description Position within the category; omitted: the end (on a move) or unchanged; beyond the end: the end */
                    orderIndex?: number;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly readOnly?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfields.delete": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfieldValues.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The values a user holds, keyed by userfield id; {} when there are none */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userfieldValues.replace": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description Values to set, keyed by userfield id; fields not named keep their value. All or nothing: when one entry is refused, none is written and fieldErrors names every refused userfield id */
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "offeringCategories.list": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                /** @description Substring, case-insensitive */
                name?: string;
                /** @description Creation date: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                createdDate?: string;
                /** @description Beyond v5. Date of the last change: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                updatedDate?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Updated-Date-Watermark": components["headers"]["Updated-Date-Watermark"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["OfferingCategory"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "offeringCategories.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the organization (case-insensitive) */
                    name: string;
                    description?: string;
                    /** @description Hex colour #rrggbb */
                    color?: string;
                    /** @description Zero-based position; omitted on create → last; beyond the end → last; later items shift */
                    orderIndex?: number;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description Created; the Location header holds the URL of the new item */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "offeringCategories.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OfferingCategory"];
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "offeringCategories.update": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the organization (case-insensitive) */
                    name?: string;
                    description?: string | null;
                    /** @description Hex colour #rrggbb */
                    color?: string | null;
                    /** @description Zero-based position; omitted on create → last; beyond the end → last; later items shift */
                    orderIndex?: number;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "offeringCategories.delete": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "offerings.list": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                /** @description Substring, case-insensitive */
                title?: string;
                /** @description Offerings in this offering category */
                offeringCategoryId?: string;
                /** @description Tags separated by commas or spaces; an offering matches when it has all of them */
                tag?: string;
                /** @description Creation date: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                createdDate?: string;
                /** @description Beyond v5. Date of the last change: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                updatedDate?: string;
                /** @description Offerings open now for this user to register: within the registration window and not blocked by one of their registrations */
                userId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Updated-Date-Watermark": components["headers"]["Updated-Date-Watermark"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["Offering"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "offerings.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    title: string;
                    /** @description Start of the offering, yyyy-mm-ddThh:mm:ssZ; fractional seconds are dropped and an offset (+02:00) is converted to UTC */
                    beginDate?: string;
                    /** @description End of the offering, yyyy-mm-ddThh:mm:ssZ; fractional seconds are dropped and an offset (+02:00) is converted to UTC */
                    endDate?: string;
                    /** @description Registration opens; absent → open from the start, yyyy-mm-ddThh:mm:ssZ; fractional seconds are dropped and an offset (+02:00) is converted to UTC */
                    registrationBeginDate?: string;
                    /** @description Registration closes; absent → never closes, yyyy-mm-ddThh:mm:ssZ; fractional seconds are dropped and an offset (+02:00) is converted to UTC */
                    registrationEndDate?: string;
                    catalogDescription?: string;
                    price?: number;
                    /** @description Ids of offering categories of the organization; replaces the list */
                    offeringCategoryIds?: string[];
                    /** @description Entries holding commas or spaces are split into several tags; duplicates are dropped */
                    tags?: string[];
                    /** @description Zero-based position; omitted on create → last; beyond the end → last; later items shift */
                    orderIndex?: number;
                    /** @description Lowest grade that passes (default 70) */
                    passingGrade?: number;
                    /** @description Whether a user whose registration was graded may register again (default false) */
                    allowRetake?: boolean;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description Created; the Location header holds the URL of the new item */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "offerings.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Offering"];
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "offerings.update": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    title?: string;
                    /** @description Start of the offering, yyyy-mm-ddThh:mm:ssZ; fractional seconds are dropped and an offset (+02:00) is converted to UTC */
                    beginDate?: string | null;
                    /** @description End of the offering, yyyy-mm-ddThh:mm:ssZ; fractional seconds are dropped and an offset (+02:00) is converted to UTC */
                    endDate?: string | null;
                    /** @description Registration opens, yyyy-mm-ddThh:mm:ssZ; fractional seconds are dropped and an offset (+02:00) is converted to UTC */
                    registrationBeginDate?: string | null;
                    /** @description Registration closes, yyyy-mm-ddThh:mm:ssZ; fractional seconds are dropped and an offset (+02:00) is converted to UTC */
                    registrationEndDate?: string | null;
                    catalogDescription?: string | null;
                    price?: number | null;
                    /** @description Ids of offering categories of the organization; replaces the list */
                    offeringCategoryIds?: string[] | null;
                    /** @description Entries holding commas or spaces are split into several tags; duplicates are dropped */
                    tags?: string[] | null;
                    /** @description Zero-based position; omitted on create → last; beyond the end → last; later items shift */
                    orderIndex?: number;
                    /** @description Lowest grade that passes (default 70) */
                    passingGrade?: number;
                    /** @description Whether a user whose registration was graded may register again (default false) */
                    allowRetake?: boolean;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "offerings.delete": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "registrations.list": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                /** @description active, passed, failed, ejected */
                status?: "active" | "passed" | "failed" | "ejected";
                /** @description The user's registrations */
                userId?: string;
                /** @description The offering's registrations */
                offeringId?: string;
                /** @description Creation date: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                createdDate?: string;
                /** @description Beyond v5. Date of the last change: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                updatedDate?: string;
                /** @description Begin date: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                beginDate?: string;
                /** @description Last activity date: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                lastActiveDate?: string;
                /** @description End date: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                endDate?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Updated-Date-Watermark": components["headers"]["Updated-Date-Watermark"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["Registration"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "registrations.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A user of the organization */
                    userId: string;
                    /** @description An offering of the organization, open for registration */
                    offeringId: string;
                };
            };
        };
        responses: {
            /** @description Created; the Location header holds the URL of the new item */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "registrations.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Registration"];
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "registrations.update": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description "ejected" ends an active registration without a grade; 400 on a registration graded or already ejected ("the registration is already ejected"). The current status of an active, passed or failed registration changes nothing, so that a client can PUT back what it read
                     * @enum {string}
                     */
                    status?: "active" | "passed" | "failed" | "ejected";
                    /** @description 0-100; the registration becomes passed when it reaches the offering's passingGrade, else failed */
                    grade?: number;
                    /** @description Only with grade */
                    graderComment?: string | null;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly userId?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly offeringId?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly title?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly graderId?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly beginDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly lastActiveDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly endDate?: unknown;
                } & (unknown | unknown);
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "agreements.list": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                /** @description Beyond v5. Date of the last change: a precise timestamp, an imprecise date (2013, 2013-10, 2013-10-23, 2013-10-23T00, 2013-10-23T00:48) or a range from/to where either end may be .. */
                updatedDate?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Updated-Date-Watermark": components["headers"]["Updated-Date-Watermark"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["Agreement"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "agreements.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                /** @description standard or custom */
                type: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agreement"];
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "agreements.replace": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                /** @description standard or custom */
                type: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    title?: string;
                    text?: string;
                    /** @description The custom agreement is always required */
                    required?: boolean;
                    /** @description Read-only; ignored on input. */
                    readonly type?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userAgreements.list": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["UserAgreement"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userAgreements.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
                /** @description standard or custom */
                type: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserAgreement"];
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "userAgreements.replace": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
                /** @description standard or custom */
                type: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    agreed: boolean;
                    /** @description Read-only; ignored on input. */
                    readonly type?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly title?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly text?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly agreedDate?: unknown;
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "scimAttributes.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Beyond v5. SCIM attributes mapped onto userfields, keyed by attribute: enterprise extension attributes (urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department, ...), core attributes the server does not store itself (title, phoneNumbers[type eq "work"].value, ...) or attributes of the organization's own extension schema (urn:...:<attribute>). Identity providers then read and write those userfields through /scim/v2, validated by each userfield's own rules */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: string;
                    };
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No resource exists with the given id. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "scimAttributes.replace": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description Mappings to add or change, keyed by attribute; null removes one. Attributes not named keep their mapping. All or nothing */
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: string | null;
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No resource exists with the given id. */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "events.list": {
        parameters: {
            query?: {
                /** @description The id of the last event read: the list goes on after it. Absent: from the oldest event kept */
                after?: string;
                /** @description Up to 1000 events a page, beyond v5's 100: a consumer catching up reads in fewer round trips */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["Event"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "webhooks.list": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["Webhook"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "webhooks.create": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description Where events are POSTed: https, to a public host name (at most 253 characters; loopback, `.internal`, `.local` and `.home.arpa` names refused), checked on the addresses it resolves to at every delivery
                     */
                    url: string;
                    /** @description The event types the webhook receives */
                    events: ("user.created" | "user.updated" | "user.deleted" | "userfield.created" | "userfield.updated" | "userfield.deleted" | "userfieldcategory.created" | "userfieldcategory.updated" | "userfieldcategory.deleted" | "userfieldvalues.updated" | "registration.created" | "registration.ejected" | "registration.graded" | "agreement.updated" | "useragreement.updated" | "offering.created" | "offering.updated" | "offering.deleted" | "offeringcategory.created" | "offeringcategory.updated" | "offeringcategory.deleted")[];
                    description?: string;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly disabledReason?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly disabledDate?: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    Location: components["headers"]["Location"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        events: ("user.created" | "user.updated" | "user.deleted" | "userfield.created" | "userfield.updated" | "userfield.deleted" | "userfieldcategory.created" | "userfieldcategory.updated" | "userfieldcategory.deleted" | "userfieldvalues.updated" | "registration.created" | "registration.ejected" | "registration.graded" | "agreement.updated" | "useragreement.updated" | "offering.created" | "offering.updated" | "offering.deleted" | "offeringcategory.created" | "offeringcategory.updated" | "offeringcategory.deleted")[];
                        description?: string;
                        /** @description True after every attempt failed for 24 hours, or when disabled by PUT; nothing is delivered meanwhile */
                        disabled: boolean;
                        disabledReason?: string;
                        /**
                         * @description When it was disabled, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        disabledDate?: string;
                        /**
                         * @description When the webhook was created, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        createdDate: string;
                        /**
                         * @description When it last changed, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        updatedDate: string;
                        /** @description The signing secret (whsec_...), shown this once: receivers verify the webhook-signature header with it. A replay of the creation (Idempotency-Key) answers without it, which is kept nowhere but in the webhook: a client that lost the first answer deletes the webhook and creates it again. */
                        secret?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "webhooks.get": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description Not modified: If-None-Match names the current version (the ETag header) */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "webhooks.update": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description Where events are POSTed: https, to a public host name (at most 253 characters; loopback, `.internal`, `.local` and `.home.arpa` names refused), checked on the addresses it resolves to at every delivery
                     */
                    url?: string;
                    /** @description The event types the webhook receives */
                    events?: ("user.created" | "user.updated" | "user.deleted" | "userfield.created" | "userfield.updated" | "userfield.deleted" | "userfieldcategory.created" | "userfieldcategory.updated" | "userfieldcategory.deleted" | "userfieldvalues.updated" | "registration.created" | "registration.ejected" | "registration.graded" | "agreement.updated" | "useragreement.updated" | "offering.created" | "offering.updated" | "offering.deleted" | "offeringcategory.created" | "offeringcategory.updated" | "offeringcategory.deleted")[];
                    description?: string | null;
                    disabled?: boolean;
                    /** @description Read-only; ignored on input. */
                    readonly id?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly createdDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly updatedDate?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly disabledReason?: unknown;
                    /** @description Read-only; ignored on input. */
                    readonly disabledDate?: unknown;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        events: ("user.created" | "user.updated" | "user.deleted" | "userfield.created" | "userfield.updated" | "userfield.deleted" | "userfieldcategory.created" | "userfieldcategory.updated" | "userfieldcategory.deleted" | "userfieldvalues.updated" | "registration.created" | "registration.ejected" | "registration.graded" | "agreement.updated" | "useragreement.updated" | "offering.created" | "offering.updated" | "offering.deleted" | "offeringcategory.created" | "offeringcategory.updated" | "offeringcategory.deleted")[];
                        description?: string;
                        /** @description True after every attempt failed for 24 hours, or when disabled by PUT; nothing is delivered meanwhile */
                        disabled: boolean;
                        disabledReason?: string;
                        /**
                         * @description When it was disabled, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        disabledDate?: string;
                        /**
                         * @description When the webhook was created, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        createdDate: string;
                        /**
                         * @description When it last changed, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        updatedDate: string;
                        /** @description Events of the types it receives that were made while it was disabled: none was queued for it. POST the body `recover.body` to `recover.url` to queue them */
                        missedEvents: number;
                        /** @description How to queue the missed events */
                        recover: {
                            /**
                             * Format: uri
                             * @description The webhook's recover URL
                             */
                            url: string;
                            body: {
                                /**
                                 * @description When it was disabled, UTC yyyy-mm-ddThh:mm:ssZ
                                 * @example 2013-10-23T00:48:50Z
                                 */
                                since: string;
                            };
                        };
                    };
                };
            };
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "webhooks.delete": {
        parameters: {
            query?: never;
            header?: {
                /** @description Beyond v5. Entity tags (or *): the PUT or DELETE applies only if one names the current version of the item (compared strongly: a W/ tag never does), else 412 and nothing is written */
                "If-Match"?: string;
                /** @description Beyond v5. Entity tags (or *): a GET answers 304 without a body when one names the current version; a PUT or DELETE answers 412 then */
                "If-None-Match"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            /** @description Precondition failed: the item changed since the version If-Match names (or If-None-Match names its current one); nothing was written */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errors: string[];
                    };
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "webhooks.test": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "webhooks.recover": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Queue the events from this moment on (as their createdDate); at most EVENTS_RETENTION_DAYS (30) ago, the events the feed keeps, yyyy-mm-ddThh:mm:ssZ; fractional seconds are dropped and an offset (+02:00) is converted to UTC */
                    since: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description How many events were queued for the webhook */
                        queued: number;
                        /**
                         * @description From when, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        since: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "webhookDeliveries.list": {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: components["schemas"]["WebhookDelivery"][];
                        /**
                         * Format: uri
                         * @description Present when more items follow
                         */
                        next?: string;
                        /**
                         * Format: uri
                         * @description Present when offset > 0
                         */
                        prev?: string;
                        /**
                         * Format: uri
                         * @description Same as prev
                         */
                        previous?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "webhookDeliveries.resend": {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "imports.create": {
        parameters: {
            query?: {
                /** @description Check and compare only: the job tells what would change (changes lists who would be updated or deactivated), and nothing is written */
                dryRun?: boolean;
                /** @description The file's encoding (utf-8, utf-16le, utf-16be, windows-1252, iso-8859-1); told by its bytes when absent */
                encoding?: string;
                /** @description An Excel workbook's sheet, by name (case aside); the first when absent */
                sheet?: string;
                /** @description The row of the headings, as a spreadsheet numbers it (title rows above it are left out); the first row with something in it when absent */
                headerRow?: number;
                /** @description How the file writes numbers and dates (de, fr-CH, en-GB): a decimal comma, the day before the month; when absent, a file with semicolons between its cells is read so, any other as the API writes them */
                locale?: string;
                /** @description What headings hold: "Employee Email=email,Dept=Department" */
                map?: string;
                /** @description Columns left out: "Cost centre,Badge" */
                ignoreColumns?: string;
                /** @description The nightly sync: deactivate (never delete) the organization's active users whose email is not in the file */
                deactivateMissing?: boolean;
                /** @description Refuse the whole file when it would update and deactivate more users than this: a number, a percentage of the organization's users, or both, the larger applying (10%,5 with deactivateMissing unless given: a tenth, and never fewer than 5; no limit without it) */
                maxChanges?: string;
                /** @description With deactivateMissing: deactivate only users an import brought, none created through the API or SCIM */
                onlyImported?: boolean;
            };
            header?: {
                /** @description Makes the request safe to retry. A retry with the same key and the same request (method, path, body) within 24 hours gets the first answer again (with `Idempotent-Replayed: true`) and changes nothing; the same key with another request is a 400. A retry while the first request still runs waits for its answer, or gets 409 after 10 seconds. Keys belong to the organization. Answers of requests refused before they ran (the body fails validation) or that failed on the server's side (5xx) are not kept: the key can be used again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /**
                         * @description running; succeeded (summary holds the counts); refused (problems says why, and nothing was written; a file that would change more users than maxChanges allows has its summary too); failed (the import stopped partway: problems says where; the batches before were written)
                         * @enum {string}
                         */
                        state: "running" | "succeeded" | "refused" | "failed";
                        /**
                         * @description When the file was received, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        createdDate: string;
                        /**
                         * @description When the import finished; absent while it runs, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        finishedDate?: string;
                        options: {
                            /** @description Check and compare only: the job tells what would change (changes lists who would be updated or deactivated), and nothing is written */
                            dryRun?: boolean;
                            /** @description The file's encoding (utf-8, utf-16le, utf-16be, windows-1252, iso-8859-1); told by its bytes when absent */
                            encoding?: string;
                            /** @description An Excel workbook's sheet, by name (case aside); the first when absent */
                            sheet?: string;
                            /** @description The row of the headings, as a spreadsheet numbers it (title rows above it are left out); the first row with something in it when absent */
                            headerRow?: number;
                            /** @description How the file writes numbers and dates (de, fr-CH, en-GB): a decimal comma, the day before the month; when absent, a file with semicolons between its cells is read so, any other as the API writes them */
                            locale?: string;
                            /** @description What headings hold: "Employee Email=email,Dept=Department" */
                            map?: string;
                            /** @description Columns left out: "Cost centre,Badge" */
                            ignoreColumns?: string;
                            /** @description The nightly sync: deactivate (never delete) the organization's active users whose email is not in the file */
                            deactivateMissing?: boolean;
                            /** @description Refuse the whole file when it would update and deactivate more users than this: a number, a percentage of the organization's users, or both, the larger applying (10%,5 with deactivateMissing unless given: a tenth, and never fewer than 5; no limit without it) */
                            maxChanges?: string;
                            /** @description With deactivateMissing: deactivate only users an import brought, none created through the API or SCIM */
                            onlyImported?: boolean;
                        };
                        summary?: {
                            /** @description The file's users */
                            rows: number;
                            /** @description Users created */
                            created: number;
                            /** @description Users changed */
                            updated: number;
                            /** @description Rows equal to what is stored: nothing written for them */
                            unchanged: number;
                            /** @description Users missing from the file that the sync deactivated */
                            deactivated: number;
                            /** @description Userfield values set or changed */
                            userfieldValues: number;
                            dryRun: boolean;
                            /** @description In a dry run: each row that would create or update a user, then each user that would be deactivated; at most 10,000 (the counts tell the whole) */
                            changes?: {
                                /** @description The file's row (as a spreadsheet numbers it); absent for a user missing from the file */
                                row?: number;
                                email: string;
                                /** @enum {string} */
                                change: "created" | "updated" | "deactivated";
                            }[];
                        };
                        /** @description The file's problems, row by row (at most 1,000); absent when there are none */
                        problems?: {
                            /** @description The spreadsheet's row (empty rows count, as a spreadsheet shows them); absent for the whole file */
                            row?: number;
                            /** @description The file's column (its heading), or the character in the line for bytes the encoding cannot read */
                            column?: string | number;
                            /** @description The user property or userfield the column stands for */
                            field?: string;
                            message: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            409: components["responses"]["IdempotencyKeyInUse"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "imports.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /**
                         * @description running; succeeded (summary holds the counts); refused (problems says why, and nothing was written; a file that would change more users than maxChanges allows has its summary too); failed (the import stopped partway: problems says where; the batches before were written)
                         * @enum {string}
                         */
                        state: "running" | "succeeded" | "refused" | "failed";
                        /**
                         * @description When the file was received, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        createdDate: string;
                        /**
                         * @description When the import finished; absent while it runs, UTC yyyy-mm-ddThh:mm:ssZ
                         * @example 2013-10-23T00:48:50Z
                         */
                        finishedDate?: string;
                        options: {
                            /** @description Check and compare only: the job tells what would change (changes lists who would be updated or deactivated), and nothing is written */
                            dryRun?: boolean;
                            /** @description The file's encoding (utf-8, utf-16le, utf-16be, windows-1252, iso-8859-1); told by its bytes when absent */
                            encoding?: string;
                            /** @description An Excel workbook's sheet, by name (case aside); the first when absent */
                            sheet?: string;
                            /** @description The row of the headings, as a spreadsheet numbers it (title rows above it are left out); the first row with something in it when absent */
                            headerRow?: number;
                            /** @description How the file writes numbers and dates (de, fr-CH, en-GB): a decimal comma, the day before the month; when absent, a file with semicolons between its cells is read so, any other as the API writes them */
                            locale?: string;
                            /** @description What headings hold: "Employee Email=email,Dept=Department" */
                            map?: string;
                            /** @description Columns left out: "Cost centre,Badge" */
                            ignoreColumns?: string;
                            /** @description The nightly sync: deactivate (never delete) the organization's active users whose email is not in the file */
                            deactivateMissing?: boolean;
                            /** @description Refuse the whole file when it would update and deactivate more users than this: a number, a percentage of the organization's users, or both, the larger applying (10%,5 with deactivateMissing unless given: a tenth, and never fewer than 5; no limit without it) */
                            maxChanges?: string;
                            /** @description With deactivateMissing: deactivate only users an import brought, none created through the API or SCIM */
                            onlyImported?: boolean;
                        };
                        summary?: {
                            /** @description The file's users */
                            rows: number;
                            /** @description Users created */
                            created: number;
                            /** @description Users changed */
                            updated: number;
                            /** @description Rows equal to what is stored: nothing written for them */
                            unchanged: number;
                            /** @description Users missing from the file that the sync deactivated */
                            deactivated: number;
                            /** @description Userfield values set or changed */
                            userfieldValues: number;
                            dryRun: boolean;
                            /** @description In a dry run: each row that would create or update a user, then each user that would be deactivated; at most 10,000 (the counts tell the whole) */
                            changes?: {
                                /** @description The file's row (as a spreadsheet numbers it); absent for a user missing from the file */
                                row?: number;
                                email: string;
                                /** @enum {string} */
                                change: "created" | "updated" | "deactivated";
                            }[];
                        };
                        /** @description The file's problems, row by row (at most 1,000); absent when there are none */
                        problems?: {
                            /** @description The spreadsheet's row (empty rows count, as a spreadsheet shows them); absent for the whole file */
                            row?: number;
                            /** @description The file's column (its heading), or the character in the line for bytes the encoding cannot read */
                            column?: string | number;
                            /** @description The user property or userfield the column stands for */
                            field?: string;
                            message: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            406: components["responses"]["NotAcceptable"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
}
