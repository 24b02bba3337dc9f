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

/** A deep, frozen copy: the form in which values are stored. */
export function storedCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

/** A deep, mutable copy: the form in which stored values leave the store. */
export function outboundCopy<T>(value: T): T {
  return structuredClone(value);
}

/** Outbound copies of many values. */
export function outboundCopies<T>(values: Iterable<T>): T[] {
  return Array.from(values, (value) => structuredClone(value));
}
