/**
 * The BlockSource port on a TRON FullNode through tronweb's HTTP provider: `getnowblock`, `getblockbynum` and
 * `gettransactioninfobyblocknum` under /wallet (head) or /walletsolidity (solidified). TRX transfers come from the
 * block's successful TransferContract transactions; TRC20 transfers from `Transfer` event logs in the transaction
 * infos (which also covers transferFrom and transfers made by other contracts, and only ever successful ones).
 */
import { TronWeb, providers } from 'tronweb';
import type { BlockSource, BlockTransfer, ChainBlock, ChainLevel } from '../../core/ports/block-source.port.js';
import { guarded, NodeRefusal } from './tron-errors.js';

/** Options of {@link TronBlockSource}. */
export interface TronBlockSourceOptions {
  /** FullNode base URL (a devnet's url, or e.g. https://api.trongrid.io). */
  readonly fullHost: string;
  /** Solidity node base URL when it is not the full host (java-tron serves /walletsolidity on port 8091). */
  readonly solidityHost?: string;
  /** Sent as TRON-PRO-API-KEY on every request. */
  readonly apiKey?: string;
  /** HTTP timeout per request (default 15 s). */
  readonly timeoutMs?: number;
}

/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

type Json = Record<string, unknown>;
interface TxJson { txID?: string; ret?: { contractRet?: string }[]; raw_data?: { contract?: { type?: string; parameter?: { value?: Json } }[] } }
interface LogJson { address?: string; topics?: string[]; data?: string }
interface TxInfoJson { id?: string; log?: LogJson[]; receipt?: { result?: string } }

/** Reads blocks for the balance scanner. Construct freely: no request is made until a method is called. */
export class TronBlockSource implements BlockSource {
  private readonly full: InstanceType<typeof providers.HttpProvider>;
  private readonly solidity: InstanceType<typeof providers.HttpProvider>;

  constructor(options: TronBlockSourceOptions) {
    const timeout = options.timeoutMs ?? 15_000;
    const headers = options.apiKey ? { 'TRON-PRO-API-KEY': options.apiKey } : {};
    this.full = new providers.HttpProvider(options.fullHost, timeout, '', '', headers);
    this.solidity = new providers.HttpProvider(options.solidityHost ?? options.fullHost, timeout, '', '', headers);
  }

  async latest(level: ChainLevel): Promise<number> {
    const block = await this.request(level, 'getnowblock', {});
    const number = headerNumber(block);
    if (number === null) throw new NodeRefusal('getnowblock: no block number in the reply');
    return number;
  }

  async block(number: number, level: ChainLevel): Promise<ChainBlock | null> {
    const block = await this.request(level, 'getblockbynum', { num: number });
    if (headerNumber(block) !== number) return null;
    const infos = await this.request(level, 'gettransactioninfobyblocknum', { num: number });
    const header = (block['block_header'] as { raw_data?: { timestamp?: number } } | undefined)?.raw_data;
    const transfers: BlockTransfer[] = [
      ...trxTransfers((block['transactions'] as TxJson[] | undefined) ?? []),
      ...tokenTransfers(Array.isArray(infos) ? (infos as TxInfoJson[]) : []),
    ];
    return { number, timestamp: header?.timestamp ?? 0, transfers };
  }

  private request(level: ChainLevel, endpoint: string, body: Json): Promise<Json> {
    const [provider, prefix] = level === 'head' ? [this.full, 'wallet'] : [this.solidity, 'walletsolidity'];
    return guarded('node-read', endpoint, async () => {
      const reply = await provider.request<unknown>(`${prefix}/${endpoint}`, body, 'post');
      if (reply === null || typeof reply !== 'object') throw new NodeRefusal(`${endpoint}: unexpected reply`);
      const error = (reply as Json)['Error'];
      if (typeof error === 'string') throw new NodeRefusal(error);
      return reply as Json;
    });
  }
}

function headerNumber(block: Json): number | null {
  const n = (block['block_header'] as { raw_data?: { number?: unknown } } | undefined)?.raw_data?.number;
  // Block 0 prints no number (java-tron omits zero fields) but still has a header.
  if (n === undefined && block['block_header'] !== undefined) return 0;
  return typeof n === 'number' ? n : null;
}

function base58(hex41: string): string {
  return TronWeb.address.fromHex(hex41);
}

function trxTransfers(txs: readonly TxJson[]): BlockTransfer[] {
  const out: BlockTransfer[] = [];
  for (const tx of txs) {
    const contract = tx.raw_data?.contract?.[0];
    if (contract?.type !== 'TransferContract' || tx.ret?.[0]?.contractRet !== 'SUCCESS') continue;
    const value = contract.parameter?.value ?? {};
    const { owner_address: from, to_address: to, amount } = value as { owner_address?: string; to_address?: string; amount?: number };
    if (typeof from !== 'string' || typeof to !== 'string' || typeof amount !== 'number') continue;
    out.push({ txid: tx.txID ?? '', contract: null, from: base58(from), to: base58(to), amount: BigInt(amount) });
  }
  return out;
}

function tokenTransfers(infos: readonly TxInfoJson[]): BlockTransfer[] {
  const out: BlockTransfer[] = [];
  for (const info of infos) {
    if (info.receipt?.result !== undefined && info.receipt.result !== 'SUCCESS') continue;
    for (const log of info.log ?? []) {
      const [topic, from, to] = log.topics ?? [];
      if (topic !== TRANSFER_TOPIC || from === undefined || to === undefined || log.address === undefined) continue;
      out.push({
        txid: info.id ?? '',
        contract: base58(`41${log.address}`),
        from: base58(`41${from.slice(-40)}`),
        to: base58(`41${to.slice(-40)}`),
        amount: BigInt(`0x${log.data === undefined || log.data === '' ? '0' : log.data}`),
      });
    }
  }
  return out;
}
