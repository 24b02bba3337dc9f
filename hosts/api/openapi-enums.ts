import { REFRESH_SOURCE } from '../../core/domain/model/balance.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS, COMMAND_TYPE } from '../../core/domain/model/command.js';
import { ADDRESS_STATUS, ADDRESS_TYPE } from '../../core/domain/model/wallet.js';
import { DELIVERY_STATUS } from '../../core/domain/model/webhook.js';
import type { JsonSchema } from './openapi-schemas.js';

/**
 * An integer enum named from a core constant: values and names come from the constant (so a new status cannot be
 * left out), the meanings from `meanings` (typed by the constant's keys, so none can be missing either). Emitted as
 * `x-enum-varnames` / `x-enum-descriptions` (read by generators and renderers) and as a description listing each
 * `value = NAME: meaning`, in the constant's order.
 */
export function namedEnum<N extends string>(
  title: string, constant: Readonly<Record<N, number>>, meanings: Readonly<Record<N, string>>, only?: readonly N[],
): JsonSchema {
  const names = (Object.keys(constant) as N[]).filter((n) => only === undefined || only.includes(n));
  return {
    type: 'integer',
    enum: names.map((n) => constant[n]),
    'x-enum-varnames': names,
    'x-enum-descriptions': names.map((n) => meanings[n]),
    description: `${title}:\n${names.map((n) => `- ${constant[n]} = ${n}: ${meanings[n]}`).join('\n')}`,
  };
}

/** Spec §2 "Collection task status enum". */
export const COLLECTION_STATUS_MEANINGS: Record<keyof typeof COLLECTION_STATUS, string> = {
  PENDING: 'created; no step started',
  FUNDING_TRX: 'the main address sends TRX for gas to the sub-address',
  COLLECTING: 'the asset is transferred to the main address',
  RECOVER_TRX: 'the remaining TRX is returned to the main address',
  DONE: 'all steps complete; collection.completed dispatched (terminal)',
  FAILED: 'unrecoverable error; task abandoned; collection.failed dispatched (terminal)',
  UNDELEGATING_ENERGY: 'undelegating the energy (self-delegation path only)',
  ACQUIRING_ENERGY: 'energy acquisition transaction broadcast, awaiting confirmation',
  WAIT_ENERGY_READY: 'polling the sub-address energy until the threshold is met (up to 60 s)',
};

/** Spec §2 "Command status enum". */
export const COMMAND_STATUS_MEANINGS: Record<keyof typeof COMMAND_STATUS, string> = {
  PENDING: 'queued',
  RUNNING: 'executing',
  SUCCESS: 'completed',
  FAILED: 'execution failed',
  REJECTED: 'blocked by risk control',
  CANCELLED: 'manually cancelled',
};

/** Spec §2 "Command type enum" (names only there; the meanings say which endpoint creates each). */
const COMMAND_TYPE_MEANINGS: Record<keyof typeof COMMAND_TYPE, string> = {
  QUERY: 'a chain query',
  WITHDRAWAL: 'a withdrawal (POST /api/transfers)',
  COLLECTION: 'a collection (POST /api/collections, POST /api/cashier/collect)',
  STAKE: 'staking TRX for energy or bandwidth',
  UNSTAKE: 'unstaking TRX',
  WITHDRAW_UNSTAKED: 'withdrawing TRX past the unstaking wait',
  VOTE: 'voting for witnesses',
  WITHDRAW_REWARD: 'withdrawing voting rewards',
};

/** Spec §3 names SKIPPED and DEAD; the others are this service's (docs/decisions.md). */
const DELIVERY_STATUS_MEANINGS: Record<keyof typeof DELIVERY_STATUS, string> = {
  PENDING: 'waiting for its first attempt',
  DELIVERING: 'an attempt is in flight',
  SUCCEEDED: 'a 2xx answer arrived within 15 s',
  RETRYING: 'an attempt failed; the next one is scheduled (1 min, then 5 min)',
  DEAD: 'the third attempt failed; retries stopped (a redelivery can still be asked for)',
  SKIPPED: 'no URL was approved when the event happened; never sent or replayed',
};

/** Named integer enums of spec §2, emitted as `components.schemas` and referenced by the resources. */
export const ENUM_COMPONENTS = {
  AddressType: namedEnum('Address type', ADDRESS_TYPE, { MAIN: 'main address (one per user per network)', SUB: 'sub-address' }),
  AddressStatus: namedEnum('Address status', ADDRESS_STATUS, { DISABLED: 'disabled', ACTIVE: 'active' }),
  RefreshSource: namedEnum('Refresh source of a balance snapshot', REFRESH_SOURCE, {
    AUTO: 'refreshed by the service (scanner or schedule)', MANUAL: 'refreshed on request (POST …/balances/refresh)',
  }),
  CommandType: namedEnum('Command type', COMMAND_TYPE, COMMAND_TYPE_MEANINGS),
  CommandStatus: namedEnum('Command status', COMMAND_STATUS, COMMAND_STATUS_MEANINGS),
  CollectionStatus: namedEnum('Collection task status (DONE and FAILED are terminal)', COLLECTION_STATUS, COLLECTION_STATUS_MEANINGS),
  DeliveryStatus: namedEnum('Webhook delivery status', DELIVERY_STATUS, DELIVERY_STATUS_MEANINGS),
} as const satisfies Record<string, JsonSchema>;
