declare const changeTimeBrand: unique symbol;

/**
 * A unit of work's timestamp (unit-of-work.ts, `changeTime`), taken inside its transaction, as every
 * change's must be (the updatedDate watermark relies on it, see watermark.ts): the columns of when a
 * row last changed (schema.ts) take only this.
 */
export type ChangeTime = string & { readonly [changeTimeBrand]: true };
