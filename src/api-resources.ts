import type { Kysely } from 'kysely';
import type { Database } from './db/schema.js';
import { inTransaction } from './db/unit-of-work.js';
import type { ApiInstance, ConditionalResourceRoutes } from './http/api-instance.js';
import type { WithinTransaction } from './http/conditional-requests.js';
import type { PasswordPolicy } from './lib/password-policy.js';
import { requestExample, requestRules, type ApiTag, type DocumentRewrite } from './lib/openapi.js';
import { agreementsRoutes, agreementsTag } from './resources/agreements/agreements.routes.js';
import { agreementsService } from './resources/agreements/agreements.service.js';
import { offeringCategoriesRoutes, offeringCategoriesTag } from './resources/offering-categories/offering-categories.routes.js';
import { offeringCategoriesService } from './resources/offering-categories/offering-categories.service.js';
import { offeringsRoutes, offeringsTag } from './resources/offerings/offerings.routes.js';
import { offeringsService } from './resources/offerings/offerings.service.js';
import { registrationsRoutes, registrationsTag } from './resources/registrations/registrations.routes.js';
import { registrationsService } from './resources/registrations/registrations.service.js';
import { userfieldCategoriesRoutes, userfieldCategoriesTag } from './resources/userfield-categories/userfield-categories.routes.js';
import { userfieldCategoriesService } from './resources/userfield-categories/userfield-categories.service.js';
import { userfieldValuesRoutes, userfieldValuesTag } from './resources/userfield-values/userfield-values.routes.js';
import { userfieldValuesService } from './resources/userfield-values/userfield-values.service.js';
import { describeUserfieldTypes } from './resources/userfields/userfields.openapi.js';
import { userfieldsRoutes, userfieldsTag } from './resources/userfields/userfields.routes.js';
import { userfieldsService } from './resources/userfields/userfields.service.js';
import { usersRoutes, usersTag } from './resources/users/users.routes.js';
import { usersService } from './resources/users/users.service.js';
import { eventsRoutes, eventsTag } from './resources/events/events.routes.js';
import { eventsService } from './resources/events/events.service.js';
import { webhooksRoutes, webhooksTag } from './resources/webhooks/webhooks.routes.js';
import { webhooksService, type WebhookServiceSettings } from './resources/webhooks/webhooks.service.js';
import { attributeMappingsRoutes, attributeMappingsTag } from './resources/attribute-mappings/attribute-mappings.routes.js';
import { attributeMappingsService } from './resources/attribute-mappings/attribute-mappings.service.js';
import { importJobsService } from './resources/imports/import-jobs.service.js';
import { importsRoutes, importsTag } from './resources/imports/imports.routes.js';
import type { ImportSettings } from './lib/import-settings.js';

/** What services need of the configuration. */
interface ResourceSettings {
  passwordPolicy: PasswordPolicy;
  imports: ImportSettings;
  webhooks: WebhookServiceSettings;
}

export interface Resource {
  /** The resource's routes with their service over `db`, ready to register under each base path. */
  routes(db: Kysely<Database>, settings: ResourceSettings): (api: ApiInstance) => Promise<void>;
  /** The section of the OpenAPI document its routes are in, listed at the top of the document. */
  tag: ApiTag;
  /** The resource's own change to the generated OpenAPI document, if any. */
  openApi?: DocumentRewrite;
}

function resource<S>(
  createService: (db: Kysely<Database>, settings: ResourceSettings) => S,
  routes: ConditionalResourceRoutes<S>,
  tag: ApiTag,
  openApi?: DocumentRewrite,
): Resource {
  return {
    tag,
    routes(db, settings) {
      const service = createService(db, settings);
      const transaction: WithinTransaction<S> = (actor, work) => inTransaction(db, actor, (trx) => work(createService(trx, settings), trx));
      return async (api) => {
        await api.register(routes, { service, transaction });
      };
    },
    ...(openApi ? { openApi } : {}),
  };
}

/** Every resource of the API, in the order of the OpenAPI document. A new resource is a folder and one line here. */
export const resources: readonly Resource[] = [
  resource(
    (db, settings) => usersService(db, settings.passwordPolicy),
    usersRoutes,
    usersTag,
    requestExample('/users', 'post', { email: 'jane.doe@example.com', firstName: 'Jane', lastName: 'Doe', locale: 'en-US' }),
  ),
  resource(userfieldCategoriesService, userfieldCategoriesRoutes, userfieldCategoriesTag),
  resource(userfieldsService, userfieldsRoutes, userfieldsTag, (document) =>
    requestExample('/userfields', 'post', { type: 'text', name: 'Employee number', categoryName: 'Employment' })(describeUserfieldTypes(document)),
  ),
  resource(userfieldValuesService, userfieldValuesRoutes, userfieldValuesTag),
  resource(offeringCategoriesService, offeringCategoriesRoutes, offeringCategoriesTag),
  resource(offeringsService, offeringsRoutes, offeringsTag),
  resource(
    registrationsService,
    registrationsRoutes,
    registrationsTag,
    // A change is a status (ejected) or a grade, one of them; a comment comes with a grade.
    requestRules('/registrations/{id}', 'put', {
      oneOf: [{ required: ['status'] }, { required: ['grade'] }],
      dependentRequired: { graderComment: ['grade'] },
    }),
  ),
  resource(agreementsService, agreementsRoutes, agreementsTag),
  resource(attributeMappingsService, attributeMappingsRoutes, attributeMappingsTag),
  resource(eventsService, eventsRoutes, eventsTag),
  resource((db, settings) => webhooksService(db, settings.webhooks), webhooksRoutes, webhooksTag),
  resource(importJobsService, importsRoutes, importsTag),
];
