import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { CONSOLE_CSP } from '../api/console/console-page.js';
import { startServe, type StartedServe } from './start-serve.js';

/**
 * The console is served by `npm run serve` too (issue #38 item 1), not only by `npm start` and `npm run api`: the
 * single-machine production process answers GET /console with the shell under its strict CSP, and sends the bare
 * address to the console.
 */
describe('npm run serve serves the console', () => {
  let devnet: Devnet;
  let serve: StartedServe;
  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'serve-console' });
    serve = await startServe({
      NODE_ENV: 'production', STORE: 'memory', ALLOW_EPHEMERAL: 'true', LOCKS: 'memory', CHAIN: 'devnet', TRON_FULL_HOST: devnet.url,
      USDT_CONTRACT: devnet.usdtAddress, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), ADMIN_TOKEN: `adm_${randomBytes(24).toString('hex')}`,
      SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'no-reply@custody.test', PORT: '0', API_HOST: '127.0.0.1', METRICS_PORT: '0',
      METRICS_HOST: '127.0.0.1', LOG_LEVEL: 'silent',
    }, { hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }), mailer: new RecordingMailer() });
  }, 30_000);
  afterAll(async () => {
    await serve?.stop(5_000);
    await devnet?.close();
  });

  it('GET /console answers the shell with the CSP (no inline script, no framing); GET / redirects to /console', async () => {
    const shell = await fetch(`${serve.url}/console`);
    expect(shell.status).toBe(200);
    expect(shell.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = shell.headers.get('content-security-policy');
    expect(csp).toBe(CONSOLE_CSP);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await shell.text()).toContain('<title>Custody Hub console</title>');

    const root = await fetch(`${serve.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console');
  });
});
