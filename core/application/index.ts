import { AccountsUseCases } from './accounts.service.js';
import { ApiTokensUseCases } from './api-tokens.service.js';
import type { Application } from './application.js';
import { CashierTokensUseCases } from './cashier-tokens.service.js';
import { CashierUseCases } from './cashier.service.js';
import { CollectionsUseCases } from './collections.service.js';
import { CommandsUseCases } from './commands.service.js';
import { resolveDeps, type CoreDeps } from './deps.js';
import { WalletsUseCases } from './wallets.service.js';

export type * from './application.js';
export type * from './views.js';
export { DEFAULT_CORE_SETTINGS, type CoreDeps, type CoreSettings } from './deps.js';

/** A group whose methods are not written yet: each call rejects, so the host can wire routes already. */
function notImplemented<T extends object>(group: string): T {
  return new Proxy({} as T, {
    get: (_target, name) => () => Promise.reject(new Error(`not implemented: ${group}.${String(name)}`)),
  });
}

/** Builds every use case on the given ports. No I/O happens here. */
export function createApplication(deps: CoreDeps): Application {
  const resolved = resolveDeps(deps);
  return {
    accounts: new AccountsUseCases(resolved),
    subscriptions: notImplemented('subscriptions'),
    apiTokens: new ApiTokensUseCases(resolved),
    wallets: new WalletsUseCases(resolved),
    commands: new CommandsUseCases(resolved),
    collections: new CollectionsUseCases(resolved),
    cashierTokens: new CashierTokensUseCases(resolved),
    cashier: new CashierUseCases(resolved),
    webhooks: notImplemented('webhooks'),
    transfers: notImplemented('transfers'),
    staking: notImplemented('staking'),
    admin: notImplemented('admin'),
  };
}
