import { organizationsService } from '../../resources/organizations/organizations.service.js';
import { existingOrganization, required, table, UsageError, type Context } from '../command.js';

/** `orgs create`, `list`, `rename` and `delete`: organizations are managed from the command line only. */

export async function create({ db, values, print }: Context): Promise<number> {
  const organization = await organizationsService(db).create(required(values.name, '--name'));
  print(organization, organization.id);
  return 0;
}

export async function list({ db, print }: Context): Promise<number> {
  const organizations = await organizationsService(db).list();
  print(organizations, table(organizations, ['id', 'name', 'createdDate']));
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
