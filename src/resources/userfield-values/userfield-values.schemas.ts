import { Type, type Static } from '@sinclair/typebox';

const REPRESENTATIONS =
  'text, email, date (mm/dd/yyyy), dropdown, radiobuttons: string (an option name); yesno: "yes" or "no"; ' +
  'number: integer; decimal: number; checkbox, truefalse: boolean; checkboxes: array of option names';

export const UserfieldValues = Type.Record(Type.String(), Type.Unknown({ description: REPRESENTATIONS }), {
  description: 'The values a user holds, keyed by userfield id; {} when there are none',
});
export type UserfieldValues = Static<typeof UserfieldValues>;

export const UpdateUserfieldValues = Type.Record(Type.String(), Type.Unknown({ description: `${REPRESENTATIONS}; null clears` }), {
  description:
    'Values to set, keyed by userfield id; fields not named keep their value. All or nothing: when one entry is refused, ' +
    'none is written and fieldErrors names every refused userfield id',
});
export type UpdateUserfieldValues = Static<typeof UpdateUserfieldValues>;
