/**
 * Helpers of the cluster tests (hosts/cluster): a small HTTP client for one API node, the sign-up walk over HTTP,
 * the batch of collection requests spread over several API nodes, and what the devnet's blocks say about sweeps.
 */
import { randomUUID } from 'node:crypto';
import { Devnet } from '../../adapters/tron-devnet/index.js';

/** One answer of an API node. */
export interface Answer {
  readonly status: number;
  readonly code: string | undefined;
  readonly data: any;
}

/** A client of one API node (base URL without the /api suffix). */
export interface ApiNode {
  readonly url: string;
  call(method: string, path: string, token?: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
}

/** A client of the API served at `url`. */
export function apiNode(url: string): ApiNode {
  return {
    url,
    async call(method, path, token, body, headers = {}) {
      const response = await fetch(url + path, {
        method,
        headers: {
          ...headers,
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      let json: any;
      try { json = JSON.parse(text); } catch { json = undefined; }
      return { status: response.status, code: json?.code, data: json?.data };
    },
  };
}

function expectStatus(answer: Answer, status: number, what: string): any {
  if (answer.status !== status || answer.code !== 'OK') throw new Error(`${what}: HTTP ${answer.status} ${answer.code} ${JSON.stringify(answer.data)}`);
  return answer.data;
}

/** A user of the cluster batch: its developer token, main address and funded sub-addresses. */
export interface ClusterUser {
  readonly userId: number;
  /** The session token (withdrawals and configuration are session routes). */
  readonly session: string;
  readonly apiToken: string;
  readonly main: string;
  readonly subs: string[];
}

/**
 * Registers, verifies and logs in a user, activates the plans, makes a Developer API Token and creates the main
 * address and `subs` sub-addresses: every call alternates between the nodes, so each step reads what another wrote.
 */
export async function signUpOverNodes(
  nodes: readonly ApiNode[], codeFor: (email: string) => Promise<string>, subs: number,
): Promise<ClusterUser> {
  let turn = 0;
  const next = (): ApiNode => nodes[turn++ % nodes.length]!;
  const email = `cluster-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'correct horse battery staple';
  const registered = expectStatus(await next().call('POST', '/api/auth/register', undefined, { email, password }), 201, 'register');
  expectStatus(await next().call('POST', '/api/auth/verify', undefined, { email, code: await codeFor(email) }), 200, 'verify');
  const session = expectStatus(await next().call('POST', '/api/auth/login', undefined, { email, password }), 200, 'login').session_token;
  expectStatus(await next().call('POST', '/api/subscriptions/activate', session, { service_code: 'developer' }), 200, 'developer plan');
  expectStatus(await next().call('POST', '/api/subscriptions/activate', session, { service_code: 'sub_address', plan_code: 'pro' }), 200, 'sub plan');
  const apiToken = expectStatus(await next().call('POST', '/api/api-tokens', session, { name: 'cluster' }), 201, 'api token').token;
  const wallet = async (type: 1 | 2): Promise<string> =>
    expectStatus(await next().call('POST', '/api/wallets', apiToken, { network_code: 'TRON', address_type: type }), 201, 'wallet').address;
  const main = await wallet(1);
  const subAddresses: string[] = [];
  for (let i = 0; i < subs; i++) subAddresses.push(await wallet(2));
  return { userId: registered.user_id, session, apiToken, main, subs: subAddresses };
}

/** One sub-address of the batch: whose it is, what is swept and how much was put there. */
export interface BatchItem {
  readonly user: ClusterUser;
  readonly sub: string;
  readonly symbol: 'USDT' | 'TRX';
  readonly amount: bigint;
}

/**
 * Each item's deposit in the cached balance (a forced refresh, alternating nodes), as the balance scanner would have
 * it a block later: a collection of a balance the cache does not show is refused with 422 BIZ-AMOUNT-BELOW-MINIMUM
 * (issue #24 item 5). At most 20 a minute per user (spec §8).
 */
export async function refreshBalances(nodes: readonly ApiNode[], items: readonly BatchItem[]): Promise<void> {
  await Promise.all(items.map(async (item, n) => {
    const path = `/api/wallets/${item.sub}/balances/refresh`;
    expectStatus(await nodes[n % nodes.length]!.call('POST', path, item.user.apiToken, { force: true }), 200, `refresh ${item.sub}`);
  }));
}

/** POST /api/collections through `node` with a fresh or given Idempotency-Key. */
export function requestCollection(node: ApiNode, item: BatchItem, key: string = randomUUID()): Promise<Answer> {
  return node.call('POST', '/api/collections', item.user.apiToken, { address: item.sub, asset_symbol: item.symbol }, { 'idempotency-key': key });
}

/**
 * The duplicate storm on one sub-address, all at once: key K1 sent to every node, and a second key K2 to every node.
 * Returns the answers; exactly one collection may come of it.
 */
export async function duplicateStorm(nodes: readonly ApiNode[], item: BatchItem): Promise<{ answers: Answer[]; keys: string[] }> {
  const keys = [randomUUID(), randomUUID()];
  const answers = await Promise.all(keys.flatMap((key) => nodes.map((node) => requestCollection(node, item, key))));
  return { answers, keys };
}

/** A transfer found in the devnet's blocks. */
export interface ChainTransfer {
  readonly txid: string;
  readonly kind: 'TRX' | 'USDT';
  /** Sender and receiver as lower-case 41-hex, as the transaction carries them. */
  readonly fromHex: string;
  readonly toHex: string;
  readonly amount: bigint;
}

/** Every successful TRX and USDT transfer the devnet has put into a block so far. */
export function chainTransfers(devnet: Devnet): ChainTransfer[] {
  const usdt = devnet.usdtAddressHex.toLowerCase();
  const found: ChainTransfer[] = [];
  for (const block of devnet.chain.blocks) {
    for (const txid of block.txIds) {
      const record = devnet.chain.txs.get(txid.toLowerCase());
      if (record === undefined || record.contractRet !== 'SUCCESS') continue;
      const contract = record.tx.raw_data.contract[0];
      const value = contract?.parameter.value as Record<string, unknown> | undefined;
      if (contract === undefined || value === undefined) continue;
      const from = String(value['owner_address']).toLowerCase();
      if (contract.type === 'TransferContract') {
        found.push({ txid, kind: 'TRX', fromHex: from, toHex: String(value['to_address']).toLowerCase(), amount: BigInt(value['amount'] as number) });
        continue;
      }
      const data = String(value['data'] ?? '').toLowerCase();
      if (contract.type === 'TriggerSmartContract' && String(value['contract_address']).toLowerCase() === usdt && data.startsWith('a9059cbb')) {
        found.push({ txid, kind: 'USDT', fromHex: from, toHex: `41${data.slice(32, 72)}`, amount: BigInt(`0x${data.slice(72, 136)}`) });
      }
    }
  }
  return found;
}

/** The sweeps of the batch item on chain: transfers of its asset from the sub-address to its main address. */
export function sweepsOf(transfers: readonly ChainTransfer[], item: BatchItem): ChainTransfer[] {
  const from = Devnet.hex(item.sub).toLowerCase();
  const to = Devnet.hex(item.user.main).toLowerCase();
  return transfers.filter((t) => t.kind === item.symbol && t.fromHex === from && t.toHex === to);
}
