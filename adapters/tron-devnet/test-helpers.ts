/**
 * Shared helpers for the devnet tests: a manual-mode devnet on a free port and real tronweb clients.
 */
import { TronWeb } from 'tronweb';
import { deriveKey } from './codec.js';
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
