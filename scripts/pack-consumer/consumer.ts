/**
 * An integrator's program, run by hosts/api/client/package.integration.test.ts in a fresh project that installed the
 * packed @custody-hub/client tarball: it imports only `@custody-hub/client` and `@custody-hub/client/webhooks`, and
 * goes from sign-up to a verified collection webhook against a running `npm start`. It is type-checked there against
 * the packed `.d.ts` files.
 *
 * Input: BASE_URL and ADMIN_TOKEN in the environment; the e-mail code on stdin after it prints `CODE? <email>`.
 * Output: one `RESULT <json>` line, exit 0; any failure exits 1 with the error.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createInterface } from 'node:readline';
import { createCustodyClient, isCustodyApiError, type Schema, type WebhookEvent } from '@custody-hub/client';
import { verifySpecSignature, verifyStandardWebhook } from '@custody-hub/client/webhooks';

const BASE_URL = process.env['BASE_URL'] ?? '';
const ADMIN_TOKEN = process.env['ADMIN_TOKEN'] ?? '';
const SECRET = 'whsec-pack-test-ключ';
const EMAIL = `pack-${Date.now()}@example.com`;
const PASSWORD = 'correct horse battery staple';

interface Received { readonly body: string; readonly headers: IncomingHttpHeaders; readonly receivedAt: number }

const stdin = createInterface({ input: process.stdin });
const nextLine = (): Promise<string> => new Promise((resolve) => stdin.once('line', resolve));

/** Polls `check` every `everyMs` until it returns a value, at most `tries` times. */
async function until<T>(what: string, tries: number, everyMs: number, check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < tries; i += 1) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function main(): Promise<void> {
  const received: Received[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, receivedAt: Date.now() });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as { port: number }).port;

  try {
    const anonymous = createCustodyClient({ baseUrl: BASE_URL });
    const account = await anonymous.unwrap(anonymous.POST('/api/auth/register', { body: { email: EMAIL, password: PASSWORD } }));
    process.stdout.write(`CODE? ${EMAIL}\n`);
    const code = (await nextLine()).trim();
    await anonymous.unwrap(anonymous.POST('/api/auth/verify', { body: { email: EMAIL, code } }));
    const { session_token } = await anonymous.unwrap(anonymous.POST('/api/auth/login', { body: { email: EMAIL, password: PASSWORD } }));

    const session = createCustodyClient({ baseUrl: BASE_URL, token: session_token });
    await session.unwrap(session.POST('/api/subscriptions/activate', { body: { service_code: 'developer' } }));
    await session.unwrap(session.POST('/api/subscriptions/activate', { body: { service_code: 'sub_address', plan_code: 'starter' } }));
    const { token } = await session.unwrap(session.POST('/api/api-tokens', { body: { name: 'pack-test' } }));
    await session.unwrap(session.PUT('/api/subscriptions/config', {
      body: { service_code: 'developer', config: { webhook_url: `http://127.0.0.1:${port}/hooks`, webhook_secret: SECRET } },
    }));
    const admin = createCustodyClient({ baseUrl: BASE_URL, token: ADMIN_TOKEN });
    await admin.unwrap(admin.POST('/api/admin/webhooks/{userId}/approve', {
      params: { path: { userId: String(account.user_id) } }, body: { url: `http://127.0.0.1:${port}/hooks` },
    }));

    const hub = createCustodyClient({ baseUrl: BASE_URL, token });
    const main = await hub.unwrap(hub.POST('/api/wallets', { body: { network_code: 'TRON', address_type: 1 } }));
    const sub = await hub.unwrap(hub.POST('/api/wallets', { body: { network_code: 'TRON', address_type: 2, address_label: 'order-1' } }));
    const wallets: Schema<'Wallet'>[] = [];
    for await (const wallet of hub.paginate((page) => hub.GET('/api/wallets', { params: { query: { page, per_page: 1 } } }))) wallets.push(wallet);

    // The faucet is a sandbox tool beside the API (not in the client): a real devnet transfer to the sub-address.
    const paid = await fetch(`${BASE_URL}/dev/faucet`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: sub.address, asset_symbol: 'USDT', amount: '25000000' }),
    });
    if (!paid.ok) throw new Error(`faucet: ${paid.status} ${await paid.text()}`);
    // The faucet answers in the API's envelope; the bare `{txid}` of earlier `npm start` builds is read too.
    const faucetAnswer = await paid.json() as { txid?: string; data?: { txid: string } };
    const txid = faucetAnswer.data?.txid ?? faucetAnswer.txid;

    const balance = await until('the USDT balance', 60, 500, async () => {
      const snapshot = await hub.unwrap(hub.GET('/api/wallets/{address}/balances', { params: { path: { address: sub.address } } }));
      return snapshot.items.find((item) => item.symbol === 'USDT' && BigInt(item.balance_available) > 0n);
    });
    const created = await hub.unwrap(hub.POST('/api/collections', { body: { address: sub.address, asset_symbol: 'USDT' } }));
    const task = await until('the collection to finish', 120, 500, async () => {
      const current = await hub.unwrap(hub.GET('/api/collections/{taskNo}', { params: { path: { taskNo: created.task_no } } }));
      return current.status === 11 || current.status === 12 ? current : undefined;
    });
    const webhook = await until('the collection webhook', 60, 250, () => Promise.resolve(received.find((r) => {
      const event = JSON.parse(r.body) as WebhookEvent;
      return (event.event_type === 'collection.completed' || event.event_type === 'collection.failed') && event.task_no === created.task_no;
    })));

    const specOk = verifySpecSignature(webhook.body, SECRET, webhook.headers['x-webhook-signature'] as string | undefined);
    const standard = verifyStandardWebhook(webhook.body, webhook.headers, SECRET, { receivedAt: webhook.receivedAt });
    const forged = verifyStandardWebhook(webhook.body.replace('USDT', 'TRX'), webhook.headers, SECRET, { receivedAt: webhook.receivedAt });
    const missing = await hub.GET('/api/wallets/{address}', { params: { path: { address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf' } } });
    const typedError = await hub.unwrap(missing).catch((error: unknown) => (isCustodyApiError(error) ? error.code : 'untyped'));

    const result = {
      main: main.address, sub: sub.address, wallets: wallets.map((w) => w.address), faucetTxid: txid, balance: balance.balance_available,
      task: { task_no: task.task_no, status: task.status }, event: JSON.parse(webhook.body) as Record<string, unknown>,
      specOk, standard, forged, typedError,
    };
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  } finally {
    stdin.close();
    receiver.close();
  }
}

main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`consumer failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
