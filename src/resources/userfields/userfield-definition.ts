import type { FieldErrors } from '../../lib/domain-errors.js';
import type { UserfieldRow } from './userfields.repository.js';
import {
  allowsSeveralSelected,
  constraintKindOf,
  CONSTRAINT_PAIRS,
  hasProperty,
  parseUsDate,
  requiredProperties,
  TYPED_PROPERTIES,
  US_DATE_MESSAGE,
  type ConstraintName,
  type Constraints,
  type UserfieldType,
} from './userfield-types.js';

export interface Option {
  name: string;
  selected: boolean;
}

/** The type-dependent properties of a create or update payload. */
export interface Definition {
  name?: string | null;
  localizedNames?: Record<string, string>;
  required?: boolean;
  options?: { name: string; selected?: boolean }[];
  constraints?: Constraints;
  message?: string | null;
  size?: string;
}

const notApplicable = (type: UserfieldType) => `not applicable to type ${type}`;

function isBlank(text: string | null | undefined): boolean {
  return text === null || text === undefined || text.trim() === '';
}

function checkOptions(type: UserfieldType, options: NonNullable<Definition['options']>, fieldErrors: FieldErrors): void {
  const seen = new Set<string>();
  options.forEach((option, index) => {
    const key = option.name.toLowerCase();
    if (seen.has(key)) fieldErrors[`options[${index}].name`] = 'repeats the name of an earlier option (names are case-insensitive)';
    seen.add(key);
  });
  if (!allowsSeveralSelected(type) && options.filter((option) => option.selected).length > 1) {
    fieldErrors.options = `at most one option may be selected for type ${type}`;
  }
}

/** A constraint limit as a number that orders like it (dates as yyyymmdd); undefined for a date that is no real date. */
export function comparableLimit(limit: number | string): number | undefined {
  return typeof limit === 'number' ? limit : parseUsDate(limit);
}

function checkConstraints(type: UserfieldType, constraints: Constraints, fieldErrors: FieldErrors): void {
  const kind = constraintKindOf(type)!;
  const applicable: readonly ConstraintName[] = CONSTRAINT_PAIRS[kind];
  for (const [name, limit] of Object.entries(constraints) as [ConstraintName, number | string][]) {
    if (!applicable.includes(name)) fieldErrors[`constraints.${name}`] = notApplicable(type);
    else if (comparableLimit(limit) === undefined) fieldErrors[`constraints.${name}`] = US_DATE_MESSAGE;
  }
  const [minimumName, maximumName] = CONSTRAINT_PAIRS[kind];
  const minimum = constraints[minimumName] === undefined ? undefined : comparableLimit(constraints[minimumName]);
  const maximum = constraints[maximumName] === undefined ? undefined : comparableLimit(constraints[maximumName]);
  if (minimum !== undefined && maximum !== undefined && minimum > maximum) {
    fieldErrors[`constraints.${minimumName}`] ??= `must not exceed ${maximumName}`;
  }
}

/**
 * Every problem with the type-dependent properties sent for a field of `type`, at once: properties
 * the type does not have, blank names and messages, repeated options, inconsistent constraints.
 * On create (`creating`) the properties the type must have are also demanded.
 */
export function definitionErrors(type: UserfieldType, input: Definition, creating: boolean): FieldErrors {
  const fieldErrors: FieldErrors = {};
  for (const property of TYPED_PROPERTIES) {
    if (input[property] !== undefined && !hasProperty(type, property)) fieldErrors[property] = notApplicable(type);
  }
  for (const property of requiredProperties(type)) {
    const blank = property === 'options' ? input.options === undefined : isBlank(input[property]);
    if (blank && (creating || input[property] !== undefined)) fieldErrors[property] = 'required';
  }
  if (input.options && !fieldErrors.options) checkOptions(type, input.options, fieldErrors);
  if (input.constraints && !fieldErrors.constraints) checkConstraints(type, input.constraints, fieldErrors);
  return fieldErrors;
}

export function optionsColumn(options: NonNullable<Definition['options']>): string {
  return JSON.stringify(options.map((option): Option => ({ name: option.name, selected: option.selected ?? false })));
}

/** An empty object is no value: stored as null, omitted from responses. */
export function objectColumn(value: object): string | null {
  return Object.keys(value).length === 0 ? null : JSON.stringify(value);
}

export function optionsOf(row: Pick<UserfieldRow, 'options'>): Option[] {
  return row.options ? (JSON.parse(row.options) as Option[]) : [];
}

export function constraintsOf(row: Pick<UserfieldRow, 'constraints'>): Constraints {
  return row.constraints ? (JSON.parse(row.constraints) as Constraints) : {};
}

export function localizedNamesOf(row: Pick<UserfieldRow, 'localized_names'>): Record<string, string> {
  return row.localized_names ? (JSON.parse(row.localized_names) as Record<string, string>) : {};
}
