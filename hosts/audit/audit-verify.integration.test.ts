/**
 * Issue #26 item 5 on PostgreSQL: an audit entry tampered with directly in the database (its append-only trigger
 * switched off, as an attacker holding the table owner's role could) is detected by `npm run audit:verify` (run as
 * the operator runs it) and by GET /audit-log/verify over HTTP; a truncated chain shows against its noted head.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, RecordingMailer } from '../../adapters/memory/index.js';
import { NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { createTestDatabase, type PostgresTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { startApiServer, type RunningServer } from '../api/api-server.js';
import { loadConfig } from '../composition/config.js';
import { openComposition, type Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { nodeArgsFor } from '../../contracts-tests/harness/ts-entry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PASSWORD = 'correct horse battery staple';
const ADMIN = `adm_audit_${randomBytes(16).toString('hex')}`;

interface ToolRun { readonly code: number | null; readonly stdout: string; readonly stderr: string }

function verifyTool(env: Record<string, string>, args: readonly string[] = []): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgsFor('hosts/audit/verify-main.ts'), ...args], {
      cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString('utf8'); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const lines = (out: string): Record<string, unknown>[] => out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describeWithPostgres('audit:verify and GET /audit-log/verify on PostgreSQL (issue #26 item 5)', (serverUrl) => {
  let database: PostgresTestDatabase;
  let composition: Composition;
  let server: RunningServer;
  let dir: string;
  const mailer = new RecordingMailer();
  const env = (): Record<string, string> => ({
    STORE: 'postgres', DATABASE_URL: database.url, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), TRON_FULL_HOST: 'http://127.0.0.1:1',
  });

  async function call(method: string, path: string, auth: string | null, body?: unknown): Promise<{ status: number; data: any }> {
    const response = await fetch(`${server.url}${path}`, {
      method, headers: { 'content-type': 'application/json', ...(auth === null ? {} : { authorization: `Bearer ${auth}` }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, data: ((await response.json()) as { data: unknown }).data };
  }

  async function signUp(email: string): Promise<{ userId: number; session: string }> {
    await call('POST', '/api/auth/register', null, { email, password: PASSWORD });
    const verified = await call('POST', '/api/auth/verify', null, { email, code: mailer.lastCodeFor(email) });
    const login = await call('POST', '/api/auth/login', null, { email, password: PASSWORD });
    expect(login.status).toBe(200);
    return { userId: verified.data.user_id as number, session: login.data.session_token as string };
  }

  async function sql(text: string, params: unknown[] = []): Promise<void> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(text, params);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase(serverUrl, 'audit_verify');
    dir = await mkdtemp(join(tmpdir(), 'custody-audit-'));
    composition = await openComposition(loadConfig({ ...env(), ADMIN_TOKEN: ADMIN }, { mode: 'dev' }), {
      clock: new ManualClock(), mailer, logger: pino({ level: 'silent' }), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }),
    });
    server = await startApiServer(composition.container.get(TOKENS.ApiHost).h3, { port: 0 });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await composition?.close();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a changed entry is named by audit:verify (exit 4) and by the API check; a truncation shows against the noted head', async () => {
    const alice = await signUp('alice@example.com');
    await call('POST', '/api/auth/login', null, { email: 'alice@example.com', password: 'not the password' });
    await call('POST', '/api/auth/login', null, { email: 'alice@example.com', password: PASSWORD });
    const bob = await signUp('bob@example.com');
    await call('POST', '/api/auth/login', null, { email: 'bob@example.com', password: PASSWORD });

    const log = await call('GET', '/api/audit-log?per_page=10', alice.session);
    expect(log.status).toBe(200);
    expect(log.data.items.map((e: { seq: number; action: string }) => [e.seq, e.action]))
      .toEqual([[3, 'auth.login'], [2, 'auth.login_failed'], [1, 'auth.login']]);
    expect((await call('GET', '/api/audit-log/verify', alice.session)).data).toMatchObject({ valid: true, entries: 3, head_seq: 3 });

    const clean = await verifyTool(env());
    expect({ code: clean.code, stderr: clean.stderr }).toEqual({ code: 0, stderr: '' });
    const heads = lines(clean.stdout);
    expect(heads).toEqual([
      { user_id: alice.userId, ok: true, entries: 3, head_seq: 3, head_hash: log.data.items[0].hash },
      { user_id: bob.userId, ok: true, entries: 2, head_seq: 2, head_hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    const anchors = join(dir, 'heads.json');
    await writeFile(anchors, JSON.stringify(Object.fromEntries(heads.map((h) => [h['user_id'], { seq: h['head_seq'], hash: h['head_hash'] }]))));

    // The service's own role cannot rewrite the log: the trigger refuses.
    await expect(sql(`UPDATE audit_entries SET detail = '{"reason":"typo"}' WHERE user_id = $1 AND seq = 2`, [alice.userId])).rejects.toThrow(/append-only/);
    // Whoever owns the table can switch the trigger off: make alice's failed login look like a typo, and drop bob's newest entry.
    await sql('ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_append_only');
    await sql(`UPDATE audit_entries SET detail = '{"reason":"typo"}' WHERE user_id = $1 AND seq = 2`, [alice.userId]);
    await sql('DELETE FROM audit_entries WHERE user_id = $1 AND seq = 2', [bob.userId]);
    await sql('ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_append_only');

    const tampered = await verifyTool(env());
    expect(tampered.code).toBe(4);
    expect(tampered.stderr).toBe(`audit:verify: 1 broken chain(s); first: user ${alice.userId}, entry seq 2 (hash-mismatch)\n`);
    expect(lines(tampered.stdout)).toEqual([
      { user_id: alice.userId, ok: false, broken_at: 2, reason: 'hash-mismatch' },
      // A removed newest entry leaves a chain that verifies on its own ...
      { user_id: bob.userId, ok: true, entries: 1, head_seq: 1, head_hash: expect.any(String) },
    ]);
    // ... but not against the head noted before.
    const anchored = await verifyTool(env(), ['--anchors', anchors]);
    expect(anchored.code).toBe(4);
    expect(lines(anchored.stdout)[1]).toEqual({ user_id: bob.userId, ok: false, broken_at: 2, reason: 'head-mismatch' });

    const expected = { valid: false, entries: 1, head_seq: null, head_hash: null, broken_at: 2, reason: 'hash-mismatch' };
    expect(await call('GET', '/api/audit-log/verify', alice.session)).toEqual({ status: 200, data: expected });
    expect(await call('GET', `/api/admin/users/${alice.userId}/audit-log/verify`, ADMIN)).toEqual({ status: 200, data: expected });
    const adminLog = await call('GET', `/api/admin/users/${alice.userId}/audit-log`, ADMIN);
    expect(adminLog.data.items[1]).toMatchObject({ seq: 2, action: 'auth.login_failed', detail: { reason: 'typo' } });
    expect((await call('GET', '/api/admin/users/999999/audit-log', ADMIN)).status).toBe(404);
    expect((await call('GET', '/api/audit-log', null)).status).toBe(401);
  }, 120_000);
});
