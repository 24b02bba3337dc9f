/** Canonical positive integer: a non-zero leading digit, digits only (no sign, zeros, decimals, exponent, spaces). */
const CANONICAL_POSITIVE = /^[1-9][0-9]*$/;

/**
 * Parses a wire amount (smallest on-chain unit) into a bigint.
 * Only canonical positive integer strings are accepted ("1", "250000"); everything else, including numbers,
 * "0", "01", "+1", "1.0", "1e6" and padded strings, gives null so the caller answers BIZ-AMOUNT-INVALID.
 * Numbers are refused on purpose: a JSON number above 2^53 has already lost precision when it arrives.
 */
export function parsePositiveAmount(value: unknown): bigint | null {
  if (typeof value !== 'string' || !CANONICAL_POSITIVE.test(value)) return null;
  return BigInt(value);
}

/** Renders an amount for the wire: the plain decimal integer string (the inverse of parsePositiveAmount for n > 0). */
export function formatAmount(value: bigint): string {
  return value.toString(10);
}

/**
 * An amount in the asset's own units for people ("2.5" for 2,500,000 SUN at 6 decimals): no trailing zeros, no
 * exponent, exact for any bigint. Messages use it so that a figure is never shown in SUN under a TRX label.
 */
export function formatUnits(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString(10).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}
