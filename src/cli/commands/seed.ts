import { countOption, organizationOf, type Context } from '../command.js';
import { MAX_SEEDED_REGISTRATIONS, MAX_SEEDED_USERFIELD_VALUES, seed as seedUsers } from '../../tenancy/seed.js';

/** `seed`: demo users, with userfield values and registrations, for trying the API and benchmarking it. */
export async function seed({ db, values, config, print }: Context): Promise<number> {
  const users = countOption(values.users, '--users', 1);
  const userfieldValues = countOption(values['userfield-values'] ?? '0', '--userfield-values', 0, MAX_SEEDED_USERFIELD_VALUES);
  const registrations = countOption(values.registrations ?? '0', '--registrations', 0, MAX_SEEDED_REGISTRATIONS);
  const orgId = await organizationOf(db, values.org);
  const result = await seedUsers(db, orgId, { users, userfieldValues, registrations, passwordPolicy: config.passwordPolicy }, process.stderr);
  const extras = [
    ...(userfieldValues ? [`${result.userfieldValues} userfield values`] : []),
    ...(registrations ? [`${result.registrations} registrations`] : []),
  ];
  print(
    result,
    `${users} users created${extras.length ? ` with ${extras.join(' and ')}` : ''}; each can log in with the password ${result.password}`,
  );
  return 0;
}
