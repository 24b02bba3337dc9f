/**
 * `npm run devnet` as a user runs it: a child process on DEVNET_PORT (0 here: a free port), whose banner names the
 * URL and the USDT contract, which answers tronweb-style requests, and which exits cleanly on Ctrl-C (SIGINT).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { nodeArgsFor } from '../../contracts-tests/harness/ts-entry.js';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

it('npm run devnet prints its URL and USDT address, serves the node API, and exits 0 on SIGINT', async () => {
  const child = spawn(process.execPath, nodeArgsFor(MAIN), {
    env: { ...process.env, DEVNET_PORT: '0', DEVNET_BLOCK_MS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    const banner = new Promise<RegExpExecArray>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const m = /listening on (http:\/\/\S+) [\s\S]*USDT \(TRC20\) contract: (T\w{33})/.exec(out);
        if (m) resolve(m);
      });
      child.once('exit', (code) => reject(new Error(`devnet exited (${code}) before its banner: ${out}`)));
    });
    const [, url, usdt] = await banner;
    const info = (await (await fetch(`${url}/sim/info`)).json()) as { usdt: { base58: string }; block_ms: number };
    expect(info.usdt.base58).toBe(usdt);
    expect(info.block_ms).toBe(0);
    const block = (await (await fetch(`${url}/wallet/getnowblock`, { method: 'POST', body: '{}' })).json()) as { blockID?: string };
    expect(block.blockID).toMatch(/^[0-9a-f]{64}$/);
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 20_000);
