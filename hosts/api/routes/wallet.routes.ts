import type { Application } from '../../../core/application/index.js';
import { okReply } from '../envelope.js';
import { CANCEL_ROLES, defineRoute, type RawResult, type RouteDef } from '../route.js';
import { itemsPage, s } from '../openapi-schemas.js';

/** page/per_page of the wallet and command lists (spec §8). */
export const pageQuery = {
  page: { schema: s.int(), description: '1-based, default 1' },
  per_page: { schema: s.int(), description: 'default 20, max 100' },
};

const REFRESH_DESCRIPTION = [
  'Reads every asset\'s balance from the chain, stores it as the address\'s snapshot (`refresh_source` 2) and records a QUERY command.',
  '',
  '**Cooldown.** Within 30 s of the address\'s last stored snapshot (a refresh, or the balance scanner\'s credit), a refresh without',
  '`"force": true` does not read the chain: it answers the cached snapshot, labelled `refresh_source` 2 as every answer of this',
  'endpoint is, and says so with `X-Refresh-Cooldown` and `Retry-After`: the seconds until a refresh reads the chain again.',
  'Without those headers the chain was read for this answer. `balance_updated_at` is the snapshot\'s time either way;',
  '`"force": true` always reads the chain.',
].join('\n');

const COOLDOWN_SECONDS = { type: 'integer', minimum: 1 } as const;

/**
 * A refresh answered from the cache inside the cooldown: the same envelope, with the seconds until a refresh reads the
 * chain again in `X-Refresh-Cooldown` and `Retry-After` (a client that retries after it gets a chain read).
 */
export function cooldownAnswer(data: unknown, remainingMs: number): RawResult {
  const seconds = String(Math.max(1, Math.ceil(remainingMs / 1_000)));
  return {
    raw: { contentType: 'application/json; charset=utf-8', body: okReply(data).body, headers: { 'x-refresh-cooldown': seconds, 'retry-after': seconds } },
  };
}

/** Spec §4 "Wallet": addresses, balances, resources and commands (Developer API Token). */
export function walletRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/wallets', auth: 'developer',
      docs: {
        operationId: 'listWallets',
        summary: 'List the caller\'s wallet addresses', tag: 'Wallet', query: { type: { schema: s.ref('AddressType') }, ...pageQuery }, data: itemsPage(s.ref('Wallet')),
      },
      handle: ({ caller, query }) => app.wallets.list(caller.userId, query),
    }),
    defineRoute({
      method: 'POST', path: '/api/wallets', auth: 'developer', status: 201, rateLimit: 'wallet-create',
      docs: {
        operationId: 'createWallet',
        bodyExample: { network_code: 'TRON', address_type: 2, address_label: 'Order 1042' },
        summary: 'Create a main or sub address', tag: 'Wallet',
        body: s.obj({ network_code: s.str(), address_type: s.ref('AddressType'), address_label: s.str('max 120 characters') }, ['address_label']),
        data: s.ref('WalletCreated'),
        errors: ['BIZ-MAIN-ADDRESS-ALREADY-EXISTS', 'BIZ-NETWORK-NOT-FOUND', 'BIZ-ADDRESS-TYPE-NOT-ALLOWED', 'BIZ-MAIN-ADDRESS-REQUIRED',
          'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED', 'BIZ-SUB-ADDRESS-QUOTA-EXCEEDED'],
      },
      handle: ({ caller, body }) => app.wallets.create(caller.userId, body),
    }),
    defineRoute({
      method: 'GET', path: '/api/wallets/:address', auth: 'developer',
      docs: { operationId: 'getWallet', summary: 'One wallet address', tag: 'Wallet', data: s.ref('Wallet'), errors: ['BIZ-WALLET-ADDRESS-NOT-FOUND'] },
      handle: ({ caller, params }) => app.wallets.get(caller.userId, params.address ?? ''),
    }),
    defineRoute({
      method: 'GET', path: '/api/wallets/:address/balances', auth: 'developer',
      docs: {
        operationId: 'getWalletBalances',
        summary: 'Cached balance snapshot (no chain query)', tag: 'Wallet', data: s.ref('WalletBalance'), errors: ['BIZ-WALLET-ADDRESS-NOT-FOUND'],
      },
      handle: ({ caller, params }) => app.wallets.balances(caller.userId, params.address ?? ''),
    }),
    defineRoute({
      method: 'POST', path: '/api/wallets/:address/balances/refresh', auth: 'developer', rateLimit: 'balance-refresh',
      docs: {
        operationId: 'refreshWalletBalances',
        bodyExample: { force: true },
        summary: 'Refresh the balance snapshot from the chain', tag: 'Wallet', body: s.obj({ force: s.bool() }, ['force']),
        data: s.ref('WalletBalance'), errors: ['BIZ-WALLET-ADDRESS-NOT-FOUND', 'CHAIN-BALANCE-QUERY-FAILED'],
        description: REFRESH_DESCRIPTION,
        headers: {
          'X-Refresh-Cooldown': {
            description: 'Only on a cached answer inside the cooldown: seconds until a refresh without `force` reads the chain', schema: COOLDOWN_SECONDS, example: 12,
          },
          'Retry-After': { description: 'With X-Refresh-Cooldown, the same seconds', schema: COOLDOWN_SECONDS, example: 12 },
        },
      },
      handle: async ({ caller, params, body }) => {
        const { balance, cooldown } = await app.wallets.refresh(caller.userId, params.address ?? '', body);
        return cooldown === null ? balance : cooldownAnswer(balance, cooldown.remainingMs);
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/wallets/:address/resources', auth: 'developer',
      docs: {
        operationId: 'getWalletResources',
        summary: 'Chain resources of a TRON address', tag: 'Wallet', data: s.ref('ChainResources'),
        errors: ['BIZ-WALLET-ADDRESS-NOT-FOUND', 'BIZ-CHAIN-RESOURCES-NOT-SUPPORTED', 'CHAIN-BALANCE-QUERY-FAILED'],
      },
      handle: ({ caller, params }) => app.wallets.resources(caller.userId, params.address ?? ''),
    }),
    defineRoute({
      method: 'GET', path: '/api/commands', auth: 'developer',
      docs: {
        operationId: 'listCommands',
        summary: 'List the caller\'s commands', tag: 'Commands',
        query: { type: { schema: s.ref('CommandType') }, status: { schema: s.ref('CommandStatus') }, ...pageQuery }, data: itemsPage(s.ref('CommandListItem')),
      },
      handle: ({ caller, query }) => app.commands.list(caller.userId, query),
    }),
    defineRoute({
      method: 'GET', path: '/api/commands/:commandNo', auth: 'developer',
      docs: { operationId: 'getCommand', summary: 'One command', tag: 'Commands', data: s.ref('Command'), errors: ['BIZ-COMMAND-NOT-FOUND'] },
      handle: ({ caller, params }) => app.commands.get(caller.userId, params.commandNo ?? ''),
    }),
    defineRoute({
      method: 'POST', path: '/api/commands/:commandNo/cancel', roles: CANCEL_ROLES, auth: 'session', rateLimit: 'account-write',
      docs: {
        operationId: 'cancelOwnWithdrawal',
        summary: 'Cancel your own withdrawal before anything was broadcast (extension)', tag: 'Commands',
        description: 'Issue #35: the account that requested a withdrawal cancels it while it is PENDING (awaiting its approval '
          + 'or not) or RUNNING with nothing broadcast; it becomes CANCELLED, its held amount is released, an awaited approval '
          + 'is closed as `cancelled`, and `withdrawal.cancelled` goes to the audit log. A withdrawal already broadcast or '
          + 'finished, or a command of another type, is 409 BIZ-COMMAND-NOT-CANCELLABLE. Cancelling only tightens, so no '
          + 'step-up code is asked.',
        data: s.ref('Command'), errors: ['BIZ-COMMAND-NOT-FOUND', 'BIZ-COMMAND-NOT-CANCELLABLE'],
      },
      handle: ({ caller, params }) => app.commands.cancel(caller.userId, params.commandNo ?? ''),
    }),
  ];
}

