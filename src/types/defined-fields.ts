/**
 * The fields of `value` whose value is not `undefined` (spreading the result never clears a field).
 *
 * Contract: synchronous, never throws; a new object, `value` untouched.
 *
 * ```ts
 * const merged = { a: 1, b: 2, ...definedFields({ a: undefined, b: 3 }) }; // { a: 1, b: 3 }
 * ```
 */
export function definedFields<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
