import type { UserfieldsTable } from '../../db/schema.js';
import { changeTime, type ChangeTime, type UnitOfWork } from '../../db/unit-of-work.js';
import { newId } from '../../lib/ids.js';
import { DEFAULT_SIZE } from './userfield-types.js';

/** The address and contact fields every organization has (docs/behaviour.md, Userfields), in the order they are listed. */
export const PREDEFINED_USERFIELD_NAMES = [
  'Street 1',
  'Street 2',
  'City',
  'State/Province',
  'Postal Code',
  'Country',
  'Phone Number',
  'Company',
] as const;

/** The organization's own rows for the predefined fields: read-only text fields in no category. */
function predefinedUserfieldRows(orgId: string, createdDate: ChangeTime): UserfieldsTable[] {
  return PREDEFINED_USERFIELD_NAMES.map((name) => ({
    org_id: orgId,
    id: newId(), // time-ordered, so the list keeps the order above
    type: 'text',
    name,
    localized_names: null,
    category_id: null,
    order_index: null,
    required: false,
    options: null,
    constraints: null,
    message: null,
    size: DEFAULT_SIZE,
    read_only: true,
    prompt_missing_values: false,
    created_date: createdDate,
    updated_date: createdDate,
  }));
}

/** Provisioner: a new organization starts with the predefined fields. */
export async function provisionPredefinedUserfields(trx: UnitOfWork, orgId: string): Promise<void> {
  await trx
    .insertInto('userfields')
    .values(predefinedUserfieldRows(orgId, changeTime(trx)))
    .execute();
}
