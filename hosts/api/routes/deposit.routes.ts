import type { Application } from '../../../core/application/index.js';
import { DEPOSIT_STATUSES } from '../../../core/domain/model/deposit.js';
import { defineRoute, type RouteDef } from '../route.js';
import { itemsPage, s } from '../openapi-schemas.js';
import { pageQuery } from './wallet.routes.js';

const walletTime = { type: 'string', description: 'YYYY-MM-DD HH:MM:SS (UTC)' } as const;

/** A deposit record (issue #24); inline here, beside the routes that answer it. */
const DEPOSIT = s.obj({
  deposit_id: s.str(), address: s.str(), network_code: s.str(), asset_symbol: s.str(), amount: s.amount(), from_address: s.str(),
  txid: s.str(), block_number: s.int(), status: s.enumOf(DEPOSIT_STATUSES), detected_at: walletTime,
  confirmed_at: s.nullable({ ...walletTime, description: 'YYYY-MM-DD HH:MM:SS (UTC); null until confirmed' }),
  auto_collect: {
    ...s.enumOf(['pending', 'started', 'skipped']),
    description: 'Extension (issue #34): only on a deposit that triggered an automatic collection (config.auto_collect): pending while '
      + 'the worker has not started it (judged every minute; it waits while no energy source can cover the sweep, or while the plan '
      + 'costs more than max_fee_sun), then started or skipped',
  },
}, ['auto_collect']);

const EXAMPLE = {
  deposit_id: '5f0c2a8e-3b6d-4a51-9c2e-7d1f0b9e4a10', address: 'TPL66VK2gCXNCD7EJg9pgJRfqcRazjhUZY', network_code: 'TRON',
  asset_symbol: 'USDT', amount: '25000000', from_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  txid: 'a1f5c0e6d7b8a9f0e1d2c3b4a5968778695a4b3c2d1e0f9a8b7c6d5e4f3a2b1c', block_number: 61234567, status: 'confirmed',
  detected_at: '2026-01-01 12:00:03', confirmed_at: '2026-01-01 12:01:00',
};

const STATUS_QUERY = { schema: s.enumOf(DEPOSIT_STATUSES), description: 'pending (seen at head), confirmed (solidified) or reverted (dropped by a reorg)' };
const ASSET_QUERY = { schema: s.str(), description: 'an asset symbol of the network, e.g. TRX or USDT' };

const DESCRIPTION = [
  'Deposits are recorded by the balance scanner: one record per incoming transfer to one of your addresses (TRX, also',
  'paid from inside a contract, and TRC20 `Transfer` logs of the supported tokens), `pending` when first seen at the head',
  'of the chain, `confirmed` once its block is solidified, `reverted` when a reorg drops it (a reverted deposit that the',
  'new branch includes again turns `pending` again). Transfers between your own addresses (gas funding from the main',
  'address, sweeps, TRX recovery) are not deposits. Newest first.',
].join('\n');

/** Deposit records (issue #24, Developer API Token, owner-scoped like the wallets). */
export function depositRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/deposits', auth: 'developer',
      docs: {
        operationId: 'listDeposits', summary: 'List the caller\'s deposits', tag: 'Wallet', description: DESCRIPTION,
        query: { address: { schema: s.str() }, asset_symbol: ASSET_QUERY, status: STATUS_QUERY, ...pageQuery },
        data: itemsPage(DEPOSIT), example: { items: [EXAMPLE], pagination: { page: 1, per_page: 20, total: 1, pages: 1 } },
      },
      handle: ({ caller, query }) => app.deposits.list(caller.userId, query),
    }),
    defineRoute({
      method: 'GET', path: '/api/deposits/:depositId', auth: 'developer',
      docs: {
        operationId: 'getDeposit', summary: 'One deposit', tag: 'Wallet', data: DEPOSIT, example: EXAMPLE, errors: ['DEPOSIT-NOT-FOUND'],
      },
      handle: ({ caller, params }) => app.deposits.get(caller.userId, params.depositId ?? ''),
    }),
    defineRoute({
      method: 'GET', path: '/api/wallets/:address/deposits', auth: 'developer',
      docs: {
        operationId: 'listWalletDeposits', summary: 'Deposits to one of the caller\'s addresses', tag: 'Wallet', description: DESCRIPTION,
        query: { asset_symbol: ASSET_QUERY, status: STATUS_QUERY, ...pageQuery },
        data: itemsPage(DEPOSIT), example: { items: [EXAMPLE], pagination: { page: 1, per_page: 20, total: 1, pages: 1 } },
        errors: ['BIZ-WALLET-ADDRESS-NOT-FOUND'],
      },
      handle: ({ caller, params, query }) => app.deposits.listOfWallet(caller.userId, params.address ?? '', query),
    }),
  ];
}
