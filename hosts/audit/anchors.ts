import type { AuditCursor } from '../../core/domain/audit-chain.js';
import { ConfigError } from '../composition/config.js';

/**
 * Heads noted by an earlier `audit:verify` run, as a JSON object {"<userId>": {"seq": n, "hash": "<64 hex>"}}; the
 * operator keeps it outside the database (a truncated chain verifies on its own, but no longer holds its noted head).
 */
export function parseAnchors(text: string): Map<number, AuditCursor> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError('--anchors', 'is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError('--anchors', 'must be an object keyed by user id');
  const anchors = new Map<number, AuditCursor>();
  for (const [key, value] of Object.entries(parsed)) {
    const { seq, hash } = (value ?? {}) as { seq?: unknown; hash?: unknown };
    if (!/^[1-9][0-9]*$/.test(key) || !Number.isSafeInteger(seq) || (seq as number) < 1 || typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) {
      throw new ConfigError('--anchors', `entry ${key} must be {"seq": n >= 1, "hash": 64 hex}`);
    }
    anchors.set(Number(key), { seq: seq as number, hash });
  }
  return anchors;
}
