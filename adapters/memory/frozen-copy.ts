/**
 * Copies in and out of the memory store. The store keeps deep-frozen copies and hands out fresh deep copies, so
 * neither the object a caller passed in nor the object it got back can ever alias stored state (the classic fake
 * bug where mutating a returned object silently "saves" it, or a later `save` is dropped).
 */

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

/**
 * structuredClone, with a fast path for what the store holds: plain objects, arrays and primitives (bigint included).
 * Anything else (Map, typed arrays, class instances…) goes through structuredClone, so the result is the same; the
 * fast path only avoids its serialize/deserialize round trip, which dominated every read of the API (bench/api.ts).
 */
function deepCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  // for-in over a plain object visits exactly its own enumerable keys (Object.prototype has none) without allocating
  // the key array, and primitives (most fields) are copied without a call.
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    const child = (value as Record<string, unknown>)[key];
    copy[key] = typeof child === 'object' && child !== null ? deepCopy(child) : child;
  }
  return copy as T;
}

/** A deep, frozen copy: the form in which values are stored. */
export function storedCopy<T>(value: T): T {
  return deepFreeze(deepCopy(value));
}

/** A deep, mutable copy: the form in which stored values leave the store. */
export function outboundCopy<T>(value: T): T {
  return deepCopy(value);
}

/** Outbound copies of many values. */
export function outboundCopies<T>(values: Iterable<T>): T[] {
  return Array.from(values, (value) => deepCopy(value));
}
