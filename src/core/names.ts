// Names from a log (tools, models, JSON keys) are data. As keys of a plain object `{}` they are
// not: "constructor" or "toString" read Object.prototype's function (a count of
// "function Object() { [native code] }11"), and "__proto__" replaces the prototype and vanishes.
// Accumulate under a null prototype; hand the result on as a plain object with own keys.

/** An empty object with no prototype, for counts and tables keyed by names from a log. */
export function nameTable<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** The same own keys on an ordinary object (a spread defines `__proto__` as a plain key). */
export function plainTable<T>(table: Record<string, T>): Record<string, T> {
  return { ...table };
}

/** Sets `key` as an own property even when it is `__proto__`. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
