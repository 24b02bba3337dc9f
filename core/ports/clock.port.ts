import type { Millis } from '../domain/model/common.js';

/** The only source of time in the core. Tests drive a manual clock; production reads the system clock. */
export interface Clock {
  /** Current time in epoch milliseconds; never decreases within one process. */
  now(): Millis;
}
