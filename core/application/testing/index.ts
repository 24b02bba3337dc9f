/**
 * Core-only test helpers of the use-case layer: doubles for ports without a cheap real part (DNS, webhook transport)
 * and user journeys through the Application. The assembled test core (memory stores, ManualClock, RecordingMailer,
 * devnet gateway) is adapters/memory/testing/memory-test-core.ts, since wiring adapters is not core's business.
 */
export { StaticDnsResolver } from './static-dns-resolver.js';
export { RecordingWebhookTransport } from './recording-webhook-transport.js';
export {
  failureOf, rejectionOf, signUp, subscribeAll, userWithWallets, TEST_PASSWORD,
  type CodeReader, type SignedUpUser, type UserWithWallets,
} from './user-journeys.js';
