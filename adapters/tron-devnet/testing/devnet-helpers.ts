/**
 * The devnet's test support for other folders (hosts' e2e tests): a funded wallet, payments, blocks made solid. Hosts
 * reach an adapter only through its index.ts or its testing/ folder (core/architecture.test.ts), so they import these
 * from here; the adapter's own tests keep importing ../test-helpers.js.
 */
export { pay, solidify, startTestDevnet, trx, wallet, type Wallet } from '../test-helpers.js';
