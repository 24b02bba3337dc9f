import type { ChainGateway, TransactionIntent } from '../../core/ports/chain-gateway.port.js';

/**
 * What the faucet needs from the devnet: minting into its own account (adapters/tron-devnet `Devnet` fits in process;
 * {@link httpDevnetMint} for a devnet in another process, `npm run devnet`).
 */
export interface DevnetMint {
  fund(address: string, amountSun: bigint): void | Promise<void>;
  fundToken(address: string, amount: bigint): void | Promise<void>;
}

/**
 * The mint of a devnet in another process: its `/sim/fund` and `/sim/fund_token` routes over HTTP. A refusal or an
 * unreachable devnet is an Error naming the route.
 */
export function httpDevnetMint(devnetUrl: string): DevnetMint {
  const base = devnetUrl.replace(/\/+$/, '');
  const post = async (path: string, body: Record<string, unknown>): Promise<void> => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(5_000),
    });
    if (!response.ok) throw new Error(`the devnet's ${path} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  };
  return {
    fund: (address, amountSun) => post('/sim/fund', { address, amount_sun: Number(amountSun) }),
    fundToken: (address, amount) => post('/sim/fund_token', { address, amount: amount.toString() }),
  };
}

/** The assets the faucet pays out. */
export type FaucetAsset = 'TRX' | 'USDT';

/** A transfer the faucet broadcast; it is in the devnet's next block. */
export interface FaucetPayment {
  readonly txid: string;
  readonly from: string;
  readonly to: string;
  readonly asset_symbol: FaucetAsset;
  readonly amount: string;
}

/** A request the faucet refuses (bad address, asset or amount): a 422 over HTTP. */
export class FaucetRefusal extends Error {}

/** At most 1,000,000 TRX or USDT per payment (6 decimals): the devnet keeps SUN below 2^53. */
const MAX_AMOUNT = 1_000_000n * 1_000_000n;
/** TRX kept on the faucet account for fees: account creation (1.1 TRX) and a TRC20 transfer's burnt energy. */
const FEE_FLOAT_SUN = 200_000_000n;
const TRC20_FEE_LIMIT_SUN = 100_000_000n;

/**
 * The devnet faucet (`npm start`; `npm run serve` and `npm run api` on CHAIN=devnet): pays like a wallet would, with a signed transfer from its own account broadcast through the
 * service's ChainGateway, so the payment is a real transaction in the next block that the worker's balance scanner
 * sees (the devnet's `/sim/fund*` routes mint without a transaction, which no scanner can see). What it sends is minted
 * into its own account first, so it never runs dry.
 */
export class DevnetFaucet {
  private constructor(
    private readonly chain: ChainGateway,
    private readonly mint: DevnetMint,
    private readonly usdtContract: string,
    /** The faucet account; its key exists only in this process. */
    readonly address: string,
    private readonly privateKey: string,
  ) {}

  /** Makes the faucet's account (a fresh key) on the devnet. */
  static async open(chain: ChainGateway, mint: DevnetMint, usdtContract: string): Promise<DevnetFaucet> {
    const account = await chain.createAccount();
    await mint.fund(account.address, FEE_FLOAT_SUN);
    return new DevnetFaucet(chain, mint, usdtContract, account.address, account.privateKey);
  }

  /** Sends `amount` (smallest units, an integer string or bigint) of `asset` to `to`; resolves once broadcast. */
  async send(to: string, asset: string, amount: string | bigint): Promise<FaucetPayment> {
    if (!this.chain.isAddress(to)) throw new FaucetRefusal('address: not a TRON address');
    if (asset !== 'TRX' && asset !== 'USDT') throw new FaucetRefusal('asset_symbol: TRX or USDT');
    const units = typeof amount === 'bigint' ? amount : /^\d{1,19}$/.test(amount) ? BigInt(amount) : -1n;
    if (units <= 0n || units > MAX_AMOUNT) throw new FaucetRefusal(`amount: a positive integer string of smallest units, at most ${MAX_AMOUNT}`);
    const intent: TransactionIntent = asset === 'TRX'
      ? { kind: 'transfer-trx', to, amountSun: units }
      : { kind: 'transfer-trc20', contract: this.usdtContract, to, amount: units, feeLimitSun: TRC20_FEE_LIMIT_SUN };
    if (asset === 'TRX') await this.mint.fund(this.address, units + FEE_FLOAT_SUN);
    else {
      await this.mint.fundToken(this.address, units);
      await this.mint.fund(this.address, FEE_FLOAT_SUN);
    }
    const tx = await this.chain.prepare({ address: this.address, privateKey: () => Promise.resolve(this.privateKey) }, intent);
    await this.chain.broadcast(tx);
    return { txid: tx.txid, from: this.address, to, asset_symbol: asset, amount: units.toString() };
  }
}
