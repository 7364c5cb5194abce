import { Type, type Static } from '@sinclair/typebox';

export const AttributeMappings = Type.Record(Type.String(), Type.String({ description: 'The id of the userfield the attribute feeds' }), {
  $id: 'ScimAttributeMappings',
  description:
    'Beyond v5. SCIM attributes mapped onto userfields, keyed by attribute: enterprise extension attributes ' +
    '(urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department, ...), core attributes the server does not store ' +
    'itself (title, phoneNumbers[type eq "work"].value, ...) or attributes of the organization\'s own extension schema ' +
    '(urn:...:<attribute>). Identity providers then read and write those userfields through /scim/v2, validated by each ' +
    "userfield's own rules",
});
export type AttributeMappings = Static<typeof AttributeMappings>;

export const UpdateAttributeMappings = Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), {
  description: 'Mappings to add or change, keyed by attribute; null removes one. Attributes not named keep their mapping. All or nothing',
});
export type UpdateAttributeMappings = Static<typeof UpdateAttributeMappings>;
