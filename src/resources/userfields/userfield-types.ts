import { daysInMonth } from '../../lib/date-filter.js';

/**
 * The twelve userfield types and what each one has: the single table that validation, responses and
 * the OpenAPI description all read.
 */
export const USERFIELD_TYPES = [
  'text',
  'number',
  'decimal',
  'email',
  'date',
  'dropdown',
  'radiobuttons',
  'checkbox',
  'checkboxes',
  'truefalse',
  'yesno',
  'message',
] as const;
export type UserfieldType = (typeof USERFIELD_TYPES)[number];

/** Accepted on input, never returned. */
const TYPE_ALIASES: Record<string, UserfieldType> = { radios: 'radiobuttons' };
export const TYPE_NAMES: readonly string[] = [...USERFIELD_TYPES, ...Object.keys(TYPE_ALIASES)];

export function canonicalType(name: string): UserfieldType {
  return TYPE_ALIASES[name] ?? (name as UserfieldType);
}

/** Properties whose presence depends on the type; every field also has id, type, createdDate, updatedDate and its place in a category. */
export const TYPED_PROPERTIES = ['name', 'localizedNames', 'required', 'options', 'constraints', 'message', 'size'] as const;
export type TypedProperty = (typeof TYPED_PROPERTIES)[number];

const LABELLED = ['name', 'localizedNames'] as const;
const ENTRY = [...LABELLED, 'required', 'constraints', 'size'] as const;
const CHOICE = [...LABELLED, 'required', 'options'] as const;

const PROPERTIES_OF: Record<UserfieldType, readonly TypedProperty[]> = {
  text: ENTRY,
  number: ENTRY,
  decimal: ENTRY,
  email: ENTRY,
  date: ENTRY,
  dropdown: CHOICE,
  radiobuttons: CHOICE,
  checkboxes: CHOICE,
  checkbox: LABELLED,
  truefalse: [...LABELLED, 'required'],
  yesno: [...LABELLED, 'required'],
  message: ['message'],
};

export function hasProperty(type: UserfieldType, property: TypedProperty): boolean {
  return PROPERTIES_OF[type].includes(property);
}

/** The properties a type must be created with. */
export function requiredProperties(type: UserfieldType): ('name' | 'message' | 'options')[] {
  return (['name', 'message', 'options'] as const).filter((property) => hasProperty(type, property));
}

/** Several options may be selected by default only where the user may pick several. */
export function allowsSeveralSelected(type: UserfieldType): boolean {
  return type === 'checkboxes';
}

export const SIZES = ['small', 'medium', 'mediumlarge', 'large'] as const;
export type Size = (typeof SIZES)[number];
export const DEFAULT_SIZE: Size = 'medium';

/** Constraint pairs (minimum, maximum) of the seed's table, by what they limit. */
export const CONSTRAINT_PAIRS = {
  length: ['minimumLength', 'maximumLength'],
  value: ['minimumValue', 'maximumValue'],
  date: ['minimumDate', 'maximumDate'],
} as const;
export type ConstraintKind = keyof typeof CONSTRAINT_PAIRS;
export type ConstraintName = (typeof CONSTRAINT_PAIRS)[ConstraintKind][number];
export type Constraints = Partial<Record<ConstraintName, number | string>>;

const CONSTRAINT_KIND_OF: Partial<Record<UserfieldType, ConstraintKind>> = {
  text: 'length',
  email: 'length',
  number: 'value',
  decimal: 'value',
  date: 'date',
};

export function constraintKindOf(type: UserfieldType): ConstraintKind | undefined {
  return CONSTRAINT_KIND_OF[type];
}

/** One line per group of types with the same properties, for the OpenAPI descriptions. */
export function describeTypes(): string {
  const groups = new Map<string, UserfieldType[]>();
  for (const type of USERFIELD_TYPES) {
    const kind = constraintKindOf(type);
    const properties = PROPERTIES_OF[type].map((property) =>
      property === 'constraints' && kind ? `constraints (${CONSTRAINT_PAIRS[kind].join(', ')})` : property,
    );
    const key = properties.join(', ');
    groups.set(key, [...(groups.get(key) ?? []), type]);
  }
  return [...groups].map(([properties, types]) => `- ${types.join(', ')}: ${properties}`).join('\n');
}

const US_DATE = /^(\d{2})\/(\d{2})\/(\d{4})$/;
export const US_DATE_MESSAGE = 'must be a real date in the form mm/dd/yyyy';

/** A `mm/dd/yyyy` date as the number yyyymmdd (so dates compare as numbers), or undefined when it is no real date. */
export function parseUsDate(text: string): number | undefined {
  const match = US_DATE.exec(text);
  if (!match) return undefined;
  const [month, day, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return year * 10000 + month * 100 + day;
}
