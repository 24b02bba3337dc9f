import type { Application } from '../../../core/application/index.js';
import { BODY_ADDRESS_STATUSES } from '../error-status.js';
import { defineRoute, type RouteDef } from '../route.js';
import { s } from '../openapi-schemas.js';
import { EX } from '../openapi-examples.js';

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
        body: s.obj({ address: s.str('a sub-address owned by the caller'), asset_symbol: s.str() }),
        data: s.ref('CollectionTask'),
        errors: ['RISK-REVIEW-BLOCKED', 'BIZ-COMMAND-LOCKED', 'BIZ-ADDRESS-TYPE-NOT-SUB', 'BIZ-WALLET-ADDRESS-NOT-FOUND', 'BIZ-ASSET-NOT-FOUND'],
      },
      handle: ({ caller, body }) => app.collections.create(caller.userId, body),
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
