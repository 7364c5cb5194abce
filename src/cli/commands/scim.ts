import { attributeMappingsService } from '../../resources/attribute-mappings/attribute-mappings.service.js';
import { commandLineCaller, organizationOf, required, table, type Context } from '../command.js';

/** `scim attributes`, `map` and `unmap`: the organization's SCIM attribute mappings, through the service of /scimattributes. */

export async function attributes({ db, values, print }: Context): Promise<number> {
  const mappings = await attributeMappingsService(db).get(commandLineCaller(await organizationOf(db, values.org)));
  const rows = Object.entries(mappings).map(([attribute, userfieldId]) => ({ attribute, userfieldId }));
  print(mappings, table(rows, ['attribute', 'userfieldId']));
  return 0;
}

export function map(context: Context): Promise<number> {
  return updateMapping(context, required(context.values.userfield, '--userfield'));
}

export function unmap(context: Context): Promise<number> {
  return updateMapping(context, null);
}

async function updateMapping({ db, values, print }: Context, userfieldId: string | null): Promise<number> {
  const caller = commandLineCaller(await organizationOf(db, values.org));
  const attribute = required(values.attribute, '--attribute');
  await attributeMappingsService(db).update(caller, { [attribute]: userfieldId });
  const mappings = await attributeMappingsService(db).get(caller);
  print(mappings, userfieldId ? `${attribute} → ${userfieldId}` : `${attribute} is no longer mapped`);
  return 0;
}
