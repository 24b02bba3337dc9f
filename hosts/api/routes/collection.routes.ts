import type { Application } from '../../../core/application/index.js';
import { BODY_ADDRESS_STATUSES } from '../error-status.js';
import { defineRoute, type RouteDef } from '../route.js';
import { itemsPage, s } from '../openapi-schemas.js';
import { pageQuery } from './wallet.routes.js';
import { EX } from '../openapi-examples.js';

/**
 * Issue #24 item 5 (extension of spec §4's error table with §7's code): a collection that could only fail is refused
 * before any task exists.
 */
export const DUST_REFUSAL = 'A collection is made only when the cached balance of the asset holds something a sweep can move. '
  + 'Dust is refused with 422 `BIZ-AMOUNT-BELOW-MINIMUM` (spec §7: balance below minimum collect threshold) before any task, command '
  + 'or event exists: no USDT, or less than 0.1 TRX (100000 SUN), what a TRX sweep must net after its fees; the 1 SUN that a token '
  + 'sweep\'s activation funding leaves on a sub-address is such dust. The cached balance is what counts (a payment the cache does '
  + 'not show yet: refresh the balance first); the worker reads the chain again before it sends anything.';

/** Issue #34 (an extension of spec §4's error table): a sweep whose energy cannot be had is refused before any task. */
export const ENERGY_REFUSAL = 'A token sweep is planned on the chain before its task is made: when no energy source can cover it '
  + '(self-delegation from the main address\'s energy stake, a configured rental provider, or burning TRX with ENERGY_BURN), it is '
  + 'refused with 422 `BIZ-ENERGY-UNAVAILABLE`, whose message names each configured source\'s reason and the fix (stake TRX for '
  + 'energy on the main address, configure a rental provider, or set ENERGY_BURN), and no task, command or event exists.';

/** Spec §4 "Collection" (Developer API Token). */
export function collectionRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'POST', path: '/api/collections', auth: 'developer', status: 201, rateLimit: 'collection-create', idempotent: true,
      errorStatuses: BODY_ADDRESS_STATUSES,
      docs: {
        operationId: 'createCollection',
        bodyExample: { address: EX.sub, asset_symbol: 'USDT' },
        summary: 'Sweep a sub-address to the main address', tag: 'Collection',
        description: `${DUST_REFUSAL} ${ENERGY_REFUSAL}`,
        body: s.obj({ address: s.str('a sub-address owned by the caller'), asset_symbol: s.str() }),
        data: s.ref('CollectionTask'),
        errors: [
          'RISK-REVIEW-BLOCKED', 'BIZ-COMMAND-LOCKED', 'BIZ-ADDRESS-TYPE-NOT-SUB', 'BIZ-WALLET-ADDRESS-NOT-FOUND', 'BIZ-ASSET-NOT-FOUND',
          'BIZ-AMOUNT-BELOW-MINIMUM', 'BIZ-ENERGY-UNAVAILABLE',
        ],
      },
      handle: ({ caller, body }) => app.collections.create(caller.userId, body),
    }),
    // Extension (issue #34): the spec has GET /collections/{taskNo} only; a merchant finding an order needs the list.
    defineRoute({
      method: 'GET', path: '/api/collections', auth: 'developer',
      docs: {
        operationId: 'listCollections',
        summary: 'List the caller\'s collection tasks, newest first (extension)', tag: 'Collection',
        description: 'Paged exactly like GET /commands (page default 1, per_page default 20, max 100; anything else, or an unknown '
          + 'status, is 422 VALIDATION-ERROR naming the parameter). Each task carries the spec\'s fields and what it swept from where.',
        query: {
          status: { schema: s.ref('CollectionStatus') },
          address: { schema: { ...s.str(), maxLength: 128 }, description: 'only the tasks of this sub-address' },
          ...pageQuery,
        },
        data: itemsPage(s.ref('CollectionTaskListItem')),
      },
      handle: ({ caller, query }) => app.collections.list(caller.userId, query),
    }),
    defineRoute({
      method: 'GET', path: '/api/collections/:taskNo', auth: 'developer',
      docs: {
        operationId: 'getCollection',
        summary: 'One collection task', tag: 'Collection', data: s.ref('CollectionTask'), errors: ['BIZ-COLLECTION-TASK-NOT-FOUND'],
      },
      handle: ({ caller, params }) => app.collections.get(caller.userId, params.taskNo ?? ''),
    }),
    // Extension (docs/decisions.md 53): the task's own fields stay exactly the spec's; its cost lives beside it.
    defineRoute({
      method: 'GET', path: '/api/collections/:taskNo/costs', auth: 'developer',
      docs: {
        operationId: 'getCollectionCosts',
        summary: 'What a collection task cost, from its receipts (extension)', tag: 'Collection',
        data: s.ref('CollectionCost'), errors: ['BIZ-COLLECTION-TASK-NOT-FOUND'],
      },
      handle: ({ caller, params }) => app.collections.costs(caller.userId, params.taskNo ?? ''),
    }),
  ];
}
