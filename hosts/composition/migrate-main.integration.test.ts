import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../adapters/postgres/index.js';
import { createTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `npm run db:migrate` with `env` over the test's environment (DATABASE_URL always given, possibly blank), to its exit. */
function dbMigrate(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'db:migrate'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString('utf8'); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
    const timer = setTimeout(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
      reject(new Error(`npm run db:migrate did not exit within 40 s:\n${stdout}${stderr}`));
    }, 40_000);
    child.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

async function appliedMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY id')).rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

describeWithPostgres('npm run db:migrate', (serverUrl) => {
  const migrations = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort().map((f) => f.replace(/\.sql$/, ''));

  it('applies every migration to a fresh database and says so; a second run finds the schema up to date', async () => {
    const database = await createTestDatabase(serverUrl, 'migrate');
    try {
      const first = await dbMigrate({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: '2' });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout.trim().split('\n')).toEqual([...migrations.map((m) => `migration applied: ${m}`), `${migrations.length} migration(s) applied`]);
      expect(await appliedMigrations(database.url)).toEqual(migrations);

      const second = await dbMigrate({ DATABASE_URL: database.url });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout.trim()).toBe('database schema is up to date: no migration to apply');
      expect(await appliedMigrations(database.url)).toEqual(migrations);
    } finally {
      await database.drop();
    }
  }, 90_000);

  it('exits 1 with the error, the password redacted, when the database cannot be used or DATABASE_URL is missing or bad', async () => {
    const url = new URL(serverUrl);
    url.username = 'postgres';
    url.password = 'mig-s3cret-pw';
    url.pathname = `/custody_missing_${randomBytes(4).toString('hex')}`;
    const [refused, missing, bad] = await Promise.all([
      dbMigrate({ DATABASE_URL: url.toString() }),
      dbMigrate({ DATABASE_URL: '' }),
      dbMigrate({ DATABASE_URL: 'mysql://app:mig-s3cret-pw@db/x', DATABASE_POOL_SIZE: '0' }),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^db:migrate failed: PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/custody_missing_\w+ is unreachable or refused us: .*does not exist/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('db:migrate failed: configuration: DATABASE_URL is required');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('DATABASE_URL must use postgres: or postgresql:');
    expect(bad.stderr).toContain('DATABASE_POOL_SIZE must be a number of connections (1-200)');
    for (const run of [refused, missing, bad]) expect(run.stdout + run.stderr).not.toContain('mig-s3cret-pw');
  }, 90_000);
});
