import type { Application } from './application.js';
import type { CoreDeps } from './deps.js';

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
export function createApplication(_deps: CoreDeps): Application {
  return {
    accounts: notImplemented('accounts'),
    subscriptions: notImplemented('subscriptions'),
    apiTokens: notImplemented('apiTokens'),
    wallets: notImplemented('wallets'),
    commands: notImplemented('commands'),
    collections: notImplemented('collections'),
    cashierTokens: notImplemented('cashierTokens'),
    cashier: notImplemented('cashier'),
    webhooks: notImplemented('webhooks'),
    transfers: notImplemented('transfers'),
    staking: notImplemented('staking'),
    admin: notImplemented('admin'),
  };
}
