/**
 * The worker's signing path per transaction (`npm run bench:signing`): building is left out; what is timed is signing
 * and checking that raw_data hashes to the txid, as a sweep does four times (prepare signs and checks, broadcast checks).
 * Baseline, in the same run: tronweb's way (the key's address derived at each signature, tronweb's txCheck with its
 * JavaScript SHA-256). Ours: the address derived once per Signer (the main address signs three of a sweep's four
 * transactions) and the check hashed by node:crypto. Reported as a ratio; goal: ours at most 0.6x the baseline.
 */
import { TronWeb, utils } from 'tronweb';
import { buildIntent } from '../adapters/tron/tron-intents.js';
import { addressOfPrivateKey, signTransaction, transactionConsistent } from '../adapters/tron/tron-signing.js';

const COUNT = Number(process.env['BENCH_SIGNING_TXS'] ?? 2_000);
const ROUNDS = 5;
const tw = new TronWeb({ fullHost: 'http://127.0.0.1:1' });
const key = '2'.repeat(64);
const owner = TronWeb.address.fromPrivateKey(key) as string;
const to = TronWeb.address.fromPrivateKey('3'.repeat(64)) as string;
const unsigned = await Promise.all(Array.from({ length: COUNT }, (_, i) => buildIntent(tw, owner, { kind: 'transfer-trx', to, amountSun: BigInt(i + 1) },
  { ref_block_bytes: '0a0b', ref_block_hash: '0102030405060708', expiration: 1_700_000_060_000, timestamp: 1_700_000_000_000 + i }, 100_000_000n)));

function timed(run: () => void): number {
  const started = performance.now();
  run();
  return (performance.now() - started) / COUNT;
}

const baseline: number[] = [];
const ours: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // Alternated, so that both see the same machine; the first round warms both up.
  baseline.push(timed(() => {
    for (const tx of unsigned) if (!utils.transaction.txCheck(signTransaction(tx, key) as never)) throw new Error('inconsistent');
  }));
  ours.push(timed(() => {
    const address = addressOfPrivateKey(key);
    for (const tx of unsigned) if (!transactionConsistent(signTransaction(tx, key, address) as never)) throw new Error('inconsistent');
  }));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ratio = median(ours) / median(baseline);
const ok = ratio <= 0.6;
if (!ok) process.exitCode = 1;
console.log(`signing and checking one transaction, median of ${ROUNDS} rounds of ${COUNT}: address derived each time and tronweb's txCheck ${median(baseline).toFixed(3)} ms,`
  + ` ours ${median(ours).toFixed(3)} ms: ${ratio.toFixed(2)}x — goal <= 0.6x: ${ok ? 'ok' : 'MISSED'}`);
