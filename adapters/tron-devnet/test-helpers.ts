/**
 * Shared helpers for the devnet tests: a manual-mode devnet on a free port and real tronweb clients.
 */
import { TronWeb } from 'tronweb';
import { abiEncode, addressOfKey, deriveKey, selectorOf, toHex41, type RawData } from './codec.js';
import { startDevnet, type Devnet, type DevnetOptions } from './index.js';

/** A test wallet: key, addresses and a tronweb bound to it. */
export interface Wallet {
  key: string;
  address: string;
  hex: string;
  tw: TronWeb;
}

/** Starts a deterministic manual-mode devnet. */
export function startTestDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  return startDevnet({ port: 0, blockMs: 0, seed: 'test', ...opts });
}

/** A deterministic wallet (key derived from a label) with a tronweb client on the devnet. */
export function wallet(devnet: Devnet, label: string): Wallet {
  const key = deriveKey('tests', label);
  const tw = new TronWeb({ fullHost: devnet.url, privateKey: key });
  const address = tw.defaultAddress.base58 as string;
  return { key, address, hex: Devnet_hex(address), tw };
}

function Devnet_hex(address: string): string {
  return TronWeb.address.toHex(address).toLowerCase();
}

/** Mines enough blocks for everything so far to be solidified (what tronweb's getBalance/getTransactionInfo read). */
export function solidify(devnet: Devnet): void {
  devnet.mine(devnet.chain.params.solidifyLag + 1);
}

/** TRX → sun. */
export const trx = (n: number): number => n * 1_000_000;

/**
 * Fast in-process payments for tests that need many transactions (no HTTP, no tronweb builder): each builds the
 * transaction against the head block, signs it with `key` and broadcasts it into the pending pool, returning the
 * txid. The next `mine` includes it (or drops it, if it no longer applies).
 */
export const pay = {
  /** A top-level TRX transfer (TransferContract). */
  trx(devnet: Devnet, key: string, to: string, sun: number): string {
    const owner = addressOfKey(key);
    return broadcastRaw(devnet, key, devnet.chain.buildRaw('TransferContract', { owner_address: owner, to_address: toHex41(to), amount: sun }));
  },
  /** A USDT transfer (TriggerSmartContract on the built-in token). */
  usdt(devnet: Devnet, key: string, to: string, amount: bigint, feeLimitSun = 100_000_000): string {
    const data = selectorOf('transfer(address,uint256)') + abiEncode(['address', 'uint256'], [toHex41(to), amount]);
    return call(devnet, key, devnet.usdtAddressHex, data, 0, feeLimitSun);
  },
  /**
   * TRX paid by a contract: the router forwards `sun` to `to` (or splits it between two receivers) as internal
   * transactions; the top-level transaction names only the router.
   */
  viaRouter(devnet: Devnet, key: string, to: string | readonly [string, string], sun: number, feeLimitSun = 100_000_000): string {
    const data = typeof to === 'string'
      ? selectorOf('forward(address)') + abiEncode(['address'], [toHex41(to)])
      : selectorOf('split(address,address)') + abiEncode(['address', 'address'], [toHex41(to[0]), toHex41(to[1])]);
    return call(devnet, key, devnet.chain.router, data, sun, feeLimitSun);
  },
};

function call(devnet: Devnet, key: string, contract: string, data: string, callValue: number, feeLimitSun: number): string {
  const value: Record<string, unknown> = { owner_address: addressOfKey(key), contract_address: contract, data };
  if (callValue > 0) value['call_value'] = callValue;
  return broadcastRaw(devnet, key, devnet.chain.buildRaw('TriggerSmartContract', value, { fee_limit: feeLimitSun }));
}

function broadcastRaw(devnet: Devnet, key: string, raw: RawData): string {
  const signed = devnet.chain.signRaw(raw, key);
  return devnet.chain.broadcast({ raw_data: signed.raw_data, signature: signed.signature }).txID;
}
