/**
 * The devnet's only source of randomness: a counter-based generator. A draw depends on nothing but
 * (seed, label, counter), so a run replays exactly from its seed, and two consumers (chaos, solidification
 * jitter, energy-weight drift) never disturb each other's sequence by drawing in a different order.
 */
import { createHash } from 'node:crypto';

/** A uniform draw in [0, 1): the first 48 bits of sha256(seed, label, counter). */
export function draw(seed: string, label: string, counter: number): number {
  const digest = createHash('sha256').update(`${seed}\u0000${label}\u0000${counter}`).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/** A uniform integer in [0, n) (n ≥ 1), from {@link draw}. */
export function drawInt(seed: string, label: string, counter: number, n: number): number {
  return Math.min(n - 1, Math.floor(draw(seed, label, counter) * n));
}
