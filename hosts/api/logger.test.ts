import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createApiLogger } from './logger.js';

function capture(): { lines: string[]; destination: Writable } {
  const lines: string[] = [];
  const destination = new Writable({ write(chunk, _enc, done) { lines.push(...String(chunk).split('\n').filter((l) => l !== '')); done(); } });
  return { lines, destination };
}

/** The second line of defence: if a log call ever includes headers or a body, the redaction paths keep secrets out. */
describe('createApiLogger redaction', () => {
  it('censors bearer headers, passwords, tokens and webhook secrets where request objects put them', async () => {
    const { lines, destination } = capture();
    const logger = createApiLogger({ destination });
    const secrets = ['Bearer dk_secret1', 'hunter2-password', 'st_secret2', 'ct_secret3', 'whsec_secret4', 'abcdef0123456789'.repeat(4)];
    logger.info({ req: { headers: { authorization: secrets[0], cookie: 'sid=1' } } }, 'request object');
    logger.info({ headers: { authorization: secrets[0] } }, 'headers');
    logger.info({ authorization: secrets[0] }, 'top level');
    logger.info({ body: { email: 'a@example.com', password: secrets[1] } }, 'login body');
    logger.info({ data: { session_token: secrets[2] }, token: secrets[3] }, 'responses');
    logger.info({ body: { service_code: 'developer', config: { webhook_url: 'https://x.example', webhook_secret: secrets[4] } } }, 'config');
    logger.info({ wallet: { privateKey: secrets[5] } }, 'key');
    logger.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(7);
    const text = lines.join('\n');
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
    // Non-secret context survives, so the lines stay useful.
    expect(text).toContain('a@example.com');
    expect(text).toContain('https://x.example');
  });
});
