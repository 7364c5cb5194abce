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

/** The `data` of this resource's events. */
declare module '../../events/event-types.js' {
  interface EventData {
    /** The user's values and updatedDate after the change; previousAttributes hold them before. */
    'userfieldvalues.updated': { userId: string; values: UserfieldValues; updatedDate: string };
  }
}
