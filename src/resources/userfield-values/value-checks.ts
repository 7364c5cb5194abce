import { EMAIL_MAX_LENGTH, EMAIL_MESSAGE, EMAIL_PATTERN } from '../users/users.schemas.js';
import { comparableLimit, constraintsOf, optionsOf } from '../userfields/userfield-definition.js';
import type { UserfieldRow } from '../userfields/userfields.repository.js';
import {
  CONSTRAINT_PAIRS,
  parseUsDate,
  US_DATE_MESSAGE,
  type ConstraintKind,
  type Constraints,
  type UserfieldType,
} from '../userfields/userfield-types.js';

/** A value in its stored (canonical) form, or why it is refused. */
type CheckedValue = { value: unknown } | { error: string };

const EMAIL = new RegExp(EMAIL_PATTERN, 'u');
/** Larger integers are no longer exact in JSON clients (nor in JavaScript), so a stored one could change. */
const SAFE_INTEGER_MESSAGE = `must be an integer from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`;

const BOUND_MESSAGES: Record<ConstraintKind, { below: string; above: string }> = {
  length: { below: 'must be at least {} characters long', above: 'must be at most {} characters long' },
  value: { below: 'must be at least {}', above: 'must be at most {}' },
  date: { below: 'must be on or after {}', above: 'must be on or before {}' },
};

/** Checks `measure` (a length, a number, a date as yyyymmdd) against the field's constraints of `kind`; limits are inclusive. */
function withinConstraints(value: unknown, measure: number, kind: ConstraintKind, constraints: Constraints): CheckedValue {
  const [minimumName, maximumName] = CONSTRAINT_PAIRS[kind];
  const minimum = constraints[minimumName];
  const maximum = constraints[maximumName];
  if (minimum !== undefined && measure < comparableLimit(minimum)!) {
    return { error: BOUND_MESSAGES[kind].below.replace('{}', String(minimum)) };
  }
  if (maximum !== undefined && measure > comparableLimit(maximum)!) {
    return { error: BOUND_MESSAGES[kind].above.replace('{}', String(maximum)) };
  }
  return { value };
}

function characters(text: string): number {
  return [...text].length; // code points, as a user counts them
}

function choice(value: unknown, names: string[]): CheckedValue {
  if (typeof value === 'string' && names.includes(value)) return { value };
  return { error: `must be one of the options ${names.map((name) => JSON.stringify(name)).join(', ')}` };
}

/** Several options, stored without repeats and in the field's option order. */
function choices(value: unknown, names: string[]): CheckedValue {
  if (Array.isArray(value) && value.every((name) => typeof name === 'string' && names.includes(name))) {
    return { value: names.filter((name) => value.includes(name)) };
  }
  return { error: `must be a list of options chosen from ${names.map((name) => JSON.stringify(name)).join(', ')}` };
}

type CheckedField = Pick<UserfieldRow, 'type' | 'options' | 'constraints'>;

/** A field's option names and constraints, read from their JSON text. */
interface FieldRules {
  options: string | null;
  constraints: string | null;
  optionNames: string[];
  limits: Constraints;
}

/** The rules of each field row checked, read once (an import checks every row's values against the same rows). */
const rulesOf = new WeakMap<CheckedField, FieldRules>();

function fieldRules(field: CheckedField): FieldRules {
  const known = rulesOf.get(field);
  if (known && known.options === field.options && known.constraints === field.constraints) return known;
  const rules = {
    options: field.options,
    constraints: field.constraints,
    optionNames: optionsOf(field).map((option) => option.name),
    limits: constraintsOf(field),
  };
  rulesOf.set(field, rules);
  return rules;
}

/** Checks a value (never null) for a field as the field is now: JSON type, syntax, options and every constraint. */
export function checkValue(field: CheckedField, value: unknown): CheckedValue {
  const { optionNames, limits: constraints } = fieldRules(field);
  switch (field.type as UserfieldType) {
    case 'text':
      if (typeof value !== 'string') return { error: 'must be a string' };
      return withinConstraints(value, characters(value), 'length', constraints);
    case 'email':
      if (typeof value !== 'string' || value.length > EMAIL_MAX_LENGTH || !EMAIL.test(value)) return { error: EMAIL_MESSAGE };
      return withinConstraints(value, characters(value), 'length', constraints);
    case 'number':
      if (!Number.isSafeInteger(value)) return { error: Number.isInteger(value) ? SAFE_INTEGER_MESSAGE : 'must be an integer' };
      return withinConstraints(value, value as number, 'value', constraints);
    case 'decimal':
      if (typeof value !== 'number') return { error: 'must be a number' };
      return withinConstraints(value, value, 'value', constraints);
    case 'date': {
      const date = typeof value === 'string' ? parseUsDate(value) : undefined;
      if (date === undefined) return { error: US_DATE_MESSAGE };
      return withinConstraints(value, date, 'date', constraints);
    }
    case 'dropdown':
    case 'radiobuttons':
      return choice(value, optionNames);
    case 'checkboxes':
      return choices(value, optionNames);
    case 'checkbox':
    case 'truefalse':
      return typeof value === 'boolean' ? { value } : { error: 'must be true or false' };
    case 'yesno':
      return value === 'yes' || value === 'no' ? { value } : { error: 'must be "yes" or "no"' };
    case 'message':
      return { error: 'a message field holds no value' };
  }
}
