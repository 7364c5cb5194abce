import { organizationsService } from '../../tenancy/organizations.service.js';
import { fillSandbox } from '../../tenancy/sandbox.js';
import { existingOrganization, organizationUrls, required, table, UsageError, type Context } from '../command.js';

/** `orgs create`, `list`, `rename` and `delete`: organizations are managed from the command line only. */

export async function create({ db, config, values, print }: Context): Promise<number> {
  const sandbox = Boolean(values.sandbox);
  const organization = await organizationsService(db).create(required(values.name, '--name'), { sandbox });
  if (sandbox) await fillSandbox(db, organization.id, config.passwordPolicy);
  print(organization, organization.id);
  return 0;
}

export async function list({ db, config, print }: Context): Promise<number> {
  const organizations = (await organizationsService(db).list()).map((organization) => ({
    ...organization,
    ...organizationUrls(config, organization.id),
  }));
  print(organizations, table(organizations, ['id', 'name', 'createdDate', 'signInUrl', 'consoleUrl', 'sandbox']));
  return 0;
}

export async function rename({ db, args, values, print }: Context): Promise<number> {
  const { id, name: previousName } = await existingOrganization(db, args[0]!);
  const name = required(values.name, '--name');
  await organizationsService(db).rename(id, name);
  print({ id, name, previousName }, `Organization ${id} renamed from "${previousName}" to "${name}"`);
  return 0;
}

export async function remove({ db, args, values, print }: Context): Promise<number> {
  const organization = await existingOrganization(db, args[0]!);
  if (!values.yes) throw new UsageError(`deleting "${organization.name}" removes all its data for good; add --yes to confirm`);
  await organizationsService(db).delete(organization.id);
  print(
    { id: organization.id, name: organization.name, deleted: true },
    `Organization ${organization.id} ("${organization.name}") deleted with all its data`,
  );
  return 0;
}
