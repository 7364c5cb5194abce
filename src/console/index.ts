import { agreementsSection } from './agreements/agreements.section.js';
import { apiSection } from './api/api.section.js';
import { auditSection } from './audit/audit.section.js';
import { consoleRoutes, overviewSection } from './console.routes.js';
import { importsSection } from './imports/imports.section.js';
import { offeringsSection } from './offerings/offerings.section.js';
import { peopleSection } from './people/people.section.js';
import { reportsSection } from './reports/reports.section.js';
import type { ConsoleSection } from './sections.js';
import { scimSection } from './scim/scim.section.js';
import { userfieldsSection } from './userfields/userfields.section.js';
import { webhooksSection } from './webhooks/webhooks.section.js';

/** The console's parts, in the order of its navigation. A new part is a folder and one line here. */
export const CONSOLE_SECTIONS: readonly ConsoleSection[] = [
  overviewSection,
  apiSection,
  peopleSection,
  userfieldsSection,
  offeringsSection,
  agreementsSection,
  importsSection,
  webhooksSection,
  scimSection,
  auditSection,
  reportsSection,
];

/** The console's routes, for the pages to register. */
export const administratorsConsole = consoleRoutes(CONSOLE_SECTIONS);

/** The server operator's pages (organizations and sandboxes), beside the organizations' consoles. */
export { operatorPages } from './operator/operator.routes.js';
