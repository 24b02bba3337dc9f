/**
 * The webhook verifier moved to the @custody-hub/client package (packages/client/src/webhooks.ts). This re-export only
 * keeps core/application/webhooks.service.test.ts compiling (its owner switches that import); then delete this file.
 */
export { verifyStandardWebhook } from '../../../packages/client/src/webhooks.js';
