/**
 * The approver of docs/integration.md ("Withdrawal policies and approvals"), run as a reader would run it: the
 * `approver.mjs` block is written to a temporary folder and started with node; the service's own signed request
 * (signedApprovalRequest) reaches it over HTTP, and the service's own judge (judgeApprovalAnswer) must accept its
 * answers, approving below its rule and denying above; a request with a wrong signature is refused with 401.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeApprovalAnswer, signedApprovalRequest } from '../../../core/domain/approval.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const markdown = readFileSync(join(root, 'docs/integration.md'), 'utf8');
const block = /```js\n(\/\/ approver\.mjs[\s\S]*?)\n```/.exec(markdown)?.[1];
const work = mkdtempSync(join(tmpdir(), 'approver-doc-'));
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill();
  rmSync(work, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the approver of the integration guide', () => {
  it('answers the service\'s signed requests with answers the service accepts, and refuses an unsigned request', async () => {
    expect(block, 'the approver.mjs block of docs/integration.md').toBeDefined();
    writeFileSync(join(work, 'approver.mjs'), `${block}\n`);
    const port = await freePort();
    child = spawn(process.execPath, [join(work, 'approver.mjs')], { env: { ...process.env, APPROVAL_SECRET: 'doc-secret', PORT: String(port) }, stdio: 'ignore' });
    const ask = async (amount: string, requestId: string) => {
      const payload = {
        type: 'withdrawal.approval_requested', request_id: requestId, command_no: 'C20260101', from_address: 'TA', to_address: 'TB',
        asset_symbol: 'USDT', amount, requested_at: '2026-01-01T12:00:00+00:00', expires_at: '2026-01-01T13:00:00+00:00',
      };
      const { body, headers } = signedApprovalRequest(payload, 'doc-secret');
      for (let tries = 0; ; tries++) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body });
          return judgeApprovalAnswer(await res.text(), { requestId, commandNo: 'C20260101', amount }, 'doc-secret');
        } catch (error) {
          if (tries > 50) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    expect(await ask('7500000000', 'r-1')).toEqual({ kind: 'approved' });
    expect(await ask('20000000000', 'r-2')).toEqual({ kind: 'denied' });
    const forged = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'x-approval-signature': `sha256=${'0'.repeat(64)}` }, body: '{"amount":"1"}' });
    expect(forged.status).toBe(401);
  });
});
