/**
 * The webhook end-to-end world: a worker world on the devnet, the composed core (createApplication) on the same
 * memory stores with local webhooks allowed, a loopback receiver, and a developer whose webhook URL (pointing at
 * the receiver) was set through the subscriptions use case and approved through the admin use case. Also the
 * receiver's side of spec §6, written here independently of core/domain/signature.ts.
 */
import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { createApplication } from '../../core/application/index.js';
import type { Application } from '../../core/application/application.js';
import { WebhookDispatcher } from '../../core/application/worker/webhook-dispatcher.js';
import {
  HttpWebhookTransport, startLocalReceiver, type LocalWebhookReceiver, type ReceivedWebhook, type ReceiverReply,
} from '../../adapters/http/index.js';
import { NodeDnsResolver } from '../../adapters/node/node-dns-resolver.js';
import { SelfDelegationEnergyProvider } from '../../adapters/tron/index.js';
import { devnetRentalMarket, devnetRentalProvider } from '../../contracts-tests/harness/tron-devnet.js';
import { startWorker, type RunningWorker } from './index.js';
import { buildWorkerWorld, type WorkerWorld } from './worker-test-fixture.js';

/** The developer's webhook secret (non-ASCII on purpose: the HMAC key is its UTF-8 bytes). */
export const WEBHOOK_SECRET = 'whsec-e2e-ключ-☃';

/** Everything the webhook e2e test drives or inspects. */
export interface WebhookWorld {
  readonly w: WorkerWorld;
  readonly app: Application;
  readonly receiver: LocalWebhookReceiver;
  /** The approved URL (the receiver's `/hooks` path). */
  readonly url: string;
  /** Worker whose collections get energy by delegation from the main address's stake. */
  readonly selfWorker: RunningWorker;
  /** Worker whose collections rent energy from the devnet's rental desk. */
  readonly rentalWorker: RunningWorker;
  /** Workers that rent from one provider simulation each. */
  readonly tronsaveWorker: RunningWorker;
  readonly itrxWorker: RunningWorker;
  /** Worker whose only energy source is burning TRX (ENERGY_BURN). */
  readonly burnWorker: RunningWorker;
  /** Worker with no energy source at all (no delegation, no rental, no burning): USDT collections fail for energy. */
  readonly energylessWorker: RunningWorker;
  close(): Promise<void>;
}

/** Options of buildWebhookWorld; every one has a default. */
export interface WebhookWorldOptions {
  /** How the receiver answers each POST (default: 200). */
  readonly reply?: (request: ReceivedWebhook, index: number) => ReceiverReply;
}

/** Builds the world; the developer's webhook is APPROVED when this resolves. */
export async function buildWebhookWorld(options: WebhookWorldOptions = {}): Promise<WebhookWorld> {
  const w = await buildWorkerWorld({ seed: 'webhook-e2e' });
  const receiver = await startLocalReceiver(options.reply);
  const transport = new HttpWebhookTransport({ resolver: new NodeDnsResolver(), allowLocal: true, timeoutMs: 15_000 });
  const app = createApplication({
    ...w.core, transport, dns: new NodeDnsResolver(), settings: { ...w.core.settings, allowLocalWebhooks: true },
  });
  const url = `${receiver.origin}/hooks`;
  // The worker world's user owns the wallets already; its (verified) account is what the admin review looks up.
  await w.stores.accounts.create({
    id: w.userId, email: 'dev@example.com', passwordHash: 'never-used: this developer does not log in', verified: true,
    verificationCodeHash: null, verificationExpiresAt: null, verificationAttempts: 0, createdAt: w.clock.now(), version: 1,
  });
  await app.subscriptions.activate(w.userId, { service_code: 'developer' });
  await app.subscriptions.putConfig(w.userId, { service_code: 'developer', config: { webhook_url: url, webhook_secret: WEBHOOK_SECRET } });
  await app.admin.approveWebhook(String(w.userId), { url });

  const webhooks = new WebhookDispatcher({
    clock: w.clock, ids: w.stores.ids, outbox: w.stores.outbox, deliveries: w.stores.deliveries,
    developerConfigs: w.stores.developerConfigs, cipher: w.cipher, transport,
  });
  const base = { ...w.stores, chain: w.gateway, cipher: w.cipher, assets: w.assets, webhooks };
  const selfWorker = startWorker(
    { ...base, energy: { self: new SelfDelegationEnergyProvider(w.gateway) } },
    { manual: true, collection: { pollMs: 3_000 } },
  );
  const rentalWorker = startWorker(
    { ...base, energy: { rental: devnetRentalMarket(w.devnet) } },
    { manual: true, collection: { pollMs: 3_000, confirmations: 1 } },
  );
  const tronsaveWorker = startWorker(
    { ...base, energy: { rental: devnetRentalProvider(w.devnet, 'tronsave') } }, { manual: true, collection: { pollMs: 3_000, confirmations: 1 } },
  );
  const itrxWorker = startWorker(
    { ...base, energy: { rental: devnetRentalProvider(w.devnet, 'itrx') } }, { manual: true, collection: { pollMs: 3_000, confirmations: 1 } },
  );
  const burnWorker = startWorker({ ...base, energy: {} }, { manual: true, collection: { pollMs: 3_000, confirmations: 1, burnEnabled: true } });
  const energylessWorker = startWorker({ ...base, energy: {} }, { manual: true, collection: { pollMs: 3_000, confirmations: 1 } });
  const workers = [selfWorker, rentalWorker, tronsaveWorker, itrxWorker, burnWorker, energylessWorker];
  return {
    w, app, receiver, url, selfWorker, rentalWorker, tronsaveWorker, itrxWorker, burnWorker, energylessWorker,
    async close() {
      for (const worker of workers) await worker.stop();
      await receiver.close();
      await w.close();
    },
  };
}

/**
 * Spec §6 signature, as a receiver computes it: top-level keys sorted shorter (UTF-8 bytes) first then byte order,
 * compact JSON with non-ASCII left unescaped (JSON.stringify never escapes it), HMAC-SHA256 hex, `sha256=` prefix.
 */
export function expectedSignature(body: string, secret: string): string {
  const payload = JSON.parse(body) as Record<string, unknown>;
  const keys = Object.keys(payload).sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const canonical = `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(payload[k])}`).join(',')}}`;
  return `sha256=${createHmac('sha256', secret).update(canonical, 'utf8').digest('hex')}`;
}

/** The receiver's check: the X-Webhook-Signature header against the expected one, in constant time. */
export function signatureValid(request: ReceivedWebhook, secret: string): boolean {
  const expected = Buffer.from(expectedSignature(request.body, secret));
  const header = Buffer.from(String(request.headers['x-webhook-signature']));
  return header.length === expected.length && timingSafeEqual(header, expected);
}

/**
 * The receiver's Standard Webhooks check, written here from the scheme and independently of core and of
 * `custody-hub/webhooks`: `webhook-timestamp` within `toleranceS` of `receivedAt`, then any `v1,` entry of
 * `webhook-signature` equal (constant time) to base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body`, keyed by the
 * secret's UTF-8 bytes.
 */
export function standardSignatureValid(request: ReceivedWebhook, secret: string, receivedAt: number, toleranceS = 300): boolean {
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const signatures = request.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (Math.abs(receivedAt / 1000 - Number(timestamp)) > toleranceS) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestamp}.${request.body}`, 'utf8').digest();
  return signatures.split(' ').some((entry) => {
    if (!entry.startsWith('v1,')) return false;
    const got = Buffer.from(entry.slice(3), 'base64');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

/** What the chain holds for a txid: contract type, sender, and (per type) recipient, contract and amount. */
export interface OnChainTransfer {
  readonly type: string;
  readonly result: string | undefined;
  readonly owner: string;
  readonly to: string | null;
  readonly contract: string | null;
  readonly amount: bigint | null;
}

/** Reads a transaction straight from the node's HTTP API (not through the gateway the worker used). */
export async function onChainTransfer(nodeUrl: string, txid: string): Promise<OnChainTransfer> {
  const response = await fetch(`${nodeUrl}/wallet/gettransactionbyid`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value: txid }),
  });
  const tx = await response.json() as {
    ret?: { contractRet?: string }[];
    raw_data: { contract: { type: string; parameter: { value: Record<string, string | number> } }[] };
  };
  const [contract] = tx.raw_data.contract;
  const value = contract!.parameter.value;
  const base58 = (hex: unknown): string | null => (typeof hex === 'string' ? TronWeb.address.fromHex(hex) : null);
  const data = typeof value['data'] === 'string' ? value['data'] : '';
  // A TRC-20 transfer(address,uint256): selector a9059cbb, then the recipient and the amount as 32-byte words.
  const trc20 = data.startsWith('a9059cbb') && data.length === 8 + 128;
  return {
    type: contract!.type,
    result: tx.ret?.[0]?.contractRet,
    owner: base58(value['owner_address'])!,
    to: trc20 ? base58(`41${data.slice(8 + 24, 8 + 64)}`) : base58(value['to_address']),
    contract: base58(value['contract_address']),
    amount: trc20 ? BigInt(`0x${data.slice(72)}`) : value['amount'] === undefined ? null : BigInt(value['amount']),
  };
}
