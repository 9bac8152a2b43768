/**
 * Deletes the keys whose value is undefined, in place, and returns the same object: records
 * built from optional inputs then compare, store and serialise without `key: undefined`
 * (which JSON drops but `toEqual` and spreading over another object do not).
 */
export function stripUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
}
