import { organizationsRepository } from '../../resources/organizations/organizations.repository.js';
import { required, table, UsageError, type Context } from '../command.js';

/** `orgs create`, `list`, `rename` and `delete`: organizations are managed from the command line only. */

export async function create({ db, values, print }: Context): Promise<number> {
  const organization = await organizationsRepository(db).create(required(values.name, '--name'));
  print({ id: organization.id, name: organization.name, createdDate: organization.created_date }, organization.id);
  return 0;
}

export async function list({ db, print }: Context): Promise<number> {
  const organizations = (await organizationsRepository(db).list()).map((o) => ({ id: o.id, name: o.name, createdDate: o.created_date }));
  print(organizations, table(organizations, ['id', 'name', 'createdDate']));
  return 0;
}

export async function rename({ db, args, values, print }: Context): Promise<number> {
  const organizations = organizationsRepository(db);
  const before = await organizations.find(args[0]!);
  if (!before) throw new UsageError(`No organization has the id ${args[0]}`);
  const name = required(values.name, '--name');
  await organizations.rename(before.id, name);
  print({ id: before.id, name, previousName: before.name }, `Organization ${before.id} renamed from "${before.name}" to "${name}"`);
  return 0;
}

export async function remove({ db, args, values, print }: Context): Promise<number> {
  const organizations = organizationsRepository(db);
  const organization = await organizations.find(args[0]!);
  if (!organization) throw new UsageError(`No organization has the id ${args[0]}`);
  if (!values.yes) throw new UsageError(`deleting "${organization.name}" removes all its data for good; add --yes to confirm`);
  await organizations.delete(organization.id);
  print(
    { id: organization.id, name: organization.name, deleted: true },
    `Organization ${organization.id} ("${organization.name}") deleted with all its data`,
  );
  return 0;
}
