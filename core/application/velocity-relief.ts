import { DomainError } from '../domain/errors.js';
import { formatIsoTime } from '../domain/time.js';
import {
  VELOCITY_AMOUNT_WINDOW_MS, velocityRelief, type VelocityCharge, type VelocityRelief,
} from '../domain/withdrawal-policy-rules.js';
import { COMMAND_TYPE, type Command } from '../domain/model/command.js';
import type { Millis } from '../domain/model/common.js';
import type { ResolvedDeps } from './deps.js';

const PAGE = 100;

/** The user's withdrawals that may count in the charge's windows, read newest first until one is older than a day. */
async function recentWithdrawals(deps: Pick<ResolvedDeps, 'commands'>, charge: VelocityCharge): Promise<Command[]> {
  const found: Command[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await deps.commands.listByUser(charge.userId, { type: COMMAND_TYPE.WITHDRAWAL }, { offset, limit: PAGE });
    for (const command of page.items) {
      if (command.createdAt <= charge.at - VELOCITY_AMOUNT_WINDOW_MS) return found;
      found.push(command);
    }
    if (page.items.length < PAGE) return found;
  }
}

/** The refusal's message: the limit broken, what is left of it, and when this withdrawal fits (or that it never does). */
export function velocityMessage(code: 'POLICY-VELOCITY-COUNT-EXCEEDED' | 'POLICY-VELOCITY-AMOUNT-EXCEEDED', charge: VelocityCharge, relief: VelocityRelief, now: Millis): string {
  const left = code === 'POLICY-VELOCITY-COUNT-EXCEEDED'
    ? `max_count_1h: ${relief.countLeft ?? 0} of ${charge.maxCount1h ?? 0} withdrawals of ${charge.assetSymbol} left in the last hour`
    : `max_amount_24h: ${relief.amountLeft ?? 0n} of ${charge.maxAmount24h ?? 0n} (smallest unit) of ${charge.assetSymbol} left in the last 24 h, `
      + `${charge.amount} asked`;
  if (relief.fitsAt === null) {
    const why = charge.maxAmount24h !== null && charge.amount > charge.maxAmount24h
      ? `${charge.amount} is above max_amount_24h by itself` : 'max_count_1h is 0';
    return `${left}; this withdrawal never fits: ${why}`;
  }
  const minutes = Math.ceil((relief.fitsAt - now) / 60_000);
  return `${left}; it fits from ${formatIsoTime(relief.fitsAt)} (in ${minutes} min) if nothing else is withdrawn meanwhile`;
}

/**
 * Runs `commit`; a velocity refusal of `charge` is rethrown with what is left in the window and when the withdrawal
 * fits (issue #34), and Retry-After when waiting helps. The store judged the refusal; this only explains it, from a read
 * made just after (another withdrawal committed in between may make the figures a moment old).
 */
export async function withVelocityRelief<T>(
  deps: Pick<ResolvedDeps, 'commands' | 'clock'>, charge: VelocityCharge | null, commit: () => Promise<T>,
): Promise<T> {
  try {
    return await commit();
  } catch (error) {
    if (charge === null || !(error instanceof DomainError)) throw error;
    if (error.code !== 'POLICY-VELOCITY-COUNT-EXCEEDED' && error.code !== 'POLICY-VELOCITY-AMOUNT-EXCEEDED') throw error;
    const relief = velocityRelief(await recentWithdrawals(deps, charge), charge);
    const now = deps.clock.now();
    throw new DomainError(error.code, {
      message: velocityMessage(error.code, charge, relief, now),
      ...(relief.fitsAt === null ? {} : { retryAfterMs: Math.max(0, relief.fitsAt - now) }),
      cause: error,
    });
  }
}
