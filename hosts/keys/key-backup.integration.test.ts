/**
 * Issue #26 item 4 on PostgreSQL and the devnet: keys:export and keys:import run as the operator runs them (child
 * processes, their stdout and stderr captured), around a wiped store. The restored keys then sign a real sweep.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { armor, Decrypter, Encrypter, generateIdentity, identityToRecipient } from 'age-encryption';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, RecordingMailer } from '../../adapters/memory/index.js';
import { AesGcmKeyCipher, NodeSecretHasher, TEST_SCRYPT_COST } from '../../adapters/node/index.js';
import { startDevnet, type Devnet } from '../../adapters/tron-devnet/index.js';
import { createTestDatabase, type PostgresTestDatabase } from '../../contracts-tests/harness/postgres.js';
import { describeWithPostgres } from '../../contracts-tests/harness/with-postgres.js';
import { cacheBalances } from '../../core/application/testing/cached-balances.js';
import { COLLECTION_STATUS } from '../../core/domain/model/collection-task.js';
import { loadConfig } from '../composition/config.js';
import { openComposition, type Composition } from '../composition/container.js';
import { TOKENS } from '../composition/tokens.js';
import { startComposedWorker } from '../worker/compose-worker.js';
import { BLOCK_MS } from '../worker/worker-drive.js';
import { nodeArgsFor } from '../../contracts-tests/harness/ts-entry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TRX = 1_000_000n;
const USER = 7;

interface ToolRun { readonly code: number | null; readonly stdout: string; readonly stderr: string }

/** Runs an operator tool as `npm run` does (through tsx, or npm test's JavaScript tree of the same modules: ts-entry.ts), with only the given environment besides PATH. */
function runTool(script: string, args: readonly string[], env: Record<string, string>): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgsFor(script), ...args], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString('utf8'); });
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describeWithPostgres('keys:export and keys:import on PostgreSQL (issue #26 item 4)', (serverUrl) => {
  let devnet: Devnet;
  let dir: string;
  let identity: string;
  let identityFile: string;
  let recipient: string;
  /** The operator's backup signing key (Ed25519, PEM): keys:export signs with it, keys:import verifies with its public half. */
  let signingKeyFile: string;
  let verifyKeyFile: string;
  const databases: PostgresTestDatabase[] = [];
  const runs: ToolRun[] = [];
  /** Every private key the test created: no tool output may contain one. */
  const privateKeys: string[] = [];

  const fresh = async (label: string): Promise<PostgresTestDatabase> => {
    const database = await createTestDatabase(serverUrl, label);
    databases.push(database);
    return database;
  };
  const storeEnv = (database: PostgresTestDatabase, kek: string): Record<string, string> => ({
    STORE: 'postgres', DATABASE_URL: database.url, KEY_ENCRYPTION_KEY: kek, TRON_FULL_HOST: devnet.url,
  });
  const tool = async (script: string, args: readonly string[], env: Record<string, string>): Promise<ToolRun> => {
    const run = await runTool(script, args, env);
    runs.push(run);
    return run;
  };
  const compose = (database: PostgresTestDatabase, kek: string, clock: ManualClock): Promise<Composition> => openComposition(
    loadConfig({ ...storeEnv(database, kek), USDT_CONTRACT: devnet.usdtAddress, CHAIN_CONFIRMATIONS: '1' }, { mode: 'dev' }),
    { clock, logger: pino({ level: 'silent' }), mailer: new RecordingMailer(), hasher: new NodeSecretHasher({ cost: TEST_SCRYPT_COST }) },
  );

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, blockMs: 0, seed: 'key-backup-tests' });
    dir = await mkdtemp(join(tmpdir(), 'custody-keys-'));
    identity = await generateIdentity();
    recipient = await identityToRecipient(identity);
    identityFile = join(dir, 'operator.agekey');
    await writeFile(identityFile, `# created: for the drill\n# public key: ${recipient}\n${identity}\n`, { mode: 0o600 });
    const signing = generateKeyPairSync('ed25519');
    signingKeyFile = join(dir, 'backup-signing.pem');
    verifyKeyFile = join(dir, 'backup-verify.pem');
    await writeFile(signingKeyFile, signing.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    await writeFile(verifyKeyFile, signing.publicKey.export({ type: 'spki', format: 'pem' }));
  });

  afterAll(async () => {
    // Whatever a run printed, it never carried key material: neither a wallet's private key nor the age identity.
    for (const run of runs) {
      for (const key of privateKeys) {
        expect(run.stdout.toLowerCase()).not.toContain(key.toLowerCase());
        expect(run.stderr.toLowerCase()).not.toContain(key.toLowerCase());
      }
      expect(run.stdout + run.stderr).not.toContain(identity);
    }
    await devnet?.close();
    for (const database of databases) await database.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('export, wipe, import into a fresh store under another KEK (twice: idempotent), then a sweep signs with the restored keys and lands', async () => {
    const kekA = randomBytes(32).toString('base64');
    const clock = new ManualClock();
    const a = await fresh('keys_a');
    const source = await compose(a, kekA, clock);
    const app = source.container.get(TOKENS.Application);
    const cipher = AesGcmKeyCipher.fromConfig(kekA);
    await app.subscriptions.activate(USER, { service_code: 'sub_address' });
    const main = (await app.wallets.create(USER, { network_code: 'TRON', address_type: 1 })).address;
    const subs = [
      (await app.wallets.create(USER, { network_code: 'TRON', address_type: 2, address_label: 'shop' })).address,
      (await app.wallets.create(USER, { network_code: 'TRON', address_type: 2 })).address,
    ];
    const wallets = source.container.get(TOKENS.Stores).wallets;
    const before = await Promise.all([main, ...subs].map((address) => wallets.findByAddress(address)));
    for (const w of before) privateKeys.push(new TextDecoder().decode(await cipher.decrypt(w!.encryptedKey, w!.address)));
    await source.close();

    const backup = join(dir, 'keys.age');
    const exportArgs = ['--recipient', recipient, '--out', backup, '--signing-key', signingKeyFile];
    const exported = await tool('hosts/keys/export-main.ts', exportArgs, storeEnv(a, kekA));
    expect({ code: exported.code, stderr: exported.stderr }).toEqual({ code: 0, stderr: '' });
    const { keyIdOf, verifyKeyFrom } = await import('./backup-signature.js');
    const signingKeyId = keyIdOf(verifyKeyFrom(await readFile(verifyKeyFile, 'utf8')));
    expect(JSON.parse(exported.stdout)).toEqual({ keys: 3, file: backup, recipients: 1, signing_key: signingKeyId });
    const file = await readFile(backup, 'utf8');
    expect(file.startsWith('-----BEGIN AGE ENCRYPTED FILE-----')).toBe(true);
    expect(file).toContain(`-----BEGIN CUSTODY HUB BACKUP SIGNATURE-----\nkey ${signingKeyId}\n`);
    for (const key of privateKeys) expect(file.toLowerCase()).not.toContain(key);
    expect(file).not.toContain('PRIVATE KEY');
    // A second export never overwrites the first; without the signing key nothing is exported.
    expect((await tool('hosts/keys/export-main.ts', exportArgs, storeEnv(a, kekA))).code).toBe(1);
    const unsigned = await tool('hosts/keys/export-main.ts', ['--recipient', recipient, '--out', join(dir, 'unsigned.age')], storeEnv(a, kekA));
    expect(unsigned.code).toBe(2);
    expect(unsigned.stderr).toMatch(/--signing-key is required/);

    // The disaster: the database and its KEK are gone.
    await a.drop();
    const kekB = randomBytes(32).toString('base64');
    const b = await fresh('keys_b');
    const importArgs = ['--in', backup, '--identity', identityFile, '--verify-key', verifyKeyFile];
    const lines = (run: ToolRun): unknown[] => run.stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown);
    // The empty store knows none of these addresses: refused, unless the whole store is restored.
    const unknown = await tool('hosts/keys/import-main.ts', importArgs, storeEnv(b, kekB));
    expect(unknown.code).toBe(3);
    expect(lines(unknown)).toEqual([{ dry_run: true, restore: [], rewrap: [], unchanged: 0, refused: expect.any(Array) }]);
    // The dry run prints the diff and writes nothing.
    const dry = await tool('hosts/keys/import-main.ts', [...importArgs, '--restore-empty-store'], storeEnv(b, kekB));
    expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 0, stderr: '' });
    expect(lines(dry)).toEqual([{
      dry_run: true, rewrap: [], unchanged: 0, refused: [],
      restore: before.map((w) => ({ address: w!.address, wallet_id: w!.id, user_id: USER, address_type: w!.addressType })),
    }]);
    const first = await tool('hosts/keys/import-main.ts', [...importArgs, '--restore-empty-store', '--apply'], storeEnv(b, kekB));
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    expect(lines(first)).toEqual([{ ...(lines(dry)[0] as object), dry_run: false }, { restored: 3, unchanged: 0, rewrapped: 0, conflicts: [] }]);
    // Not empty any more: the whole-store restore is refused; the normal import finds everything unchanged.
    expect((await tool('hosts/keys/import-main.ts', [...importArgs, '--restore-empty-store', '--apply'], storeEnv(b, kekB))).code).toBe(1);
    const again = await tool('hosts/keys/import-main.ts', [...importArgs, '--apply'], storeEnv(b, kekB));
    expect(lines(again)[1]).toEqual({ restored: 0, unchanged: 3, rewrapped: 0, conflicts: [] });
    expect(again.code).toBe(0);

    const restored = await compose(b, kekB, clock);
    try {
      const stores = restored.container.get(TOKENS.Stores);
      const after = await Promise.all([main, ...subs].map((address) => stores.wallets.findByAddress(address)));
      expect(after.map((w) => ({ id: w!.id, userId: w!.userId, type: w!.addressType, label: w!.label })))
        .toEqual(before.map((w) => ({ id: w!.id, userId: w!.userId, type: w!.addressType, label: w!.label })));
      // Under the new KEK only.
      expect(after.every((w) => w!.encryptedKey.keyId === AesGcmKeyCipher.fromConfig(kekB).currentKeyId)).toBe(true);

      // A sweep of the first sub-address: the worker signs with the restored key, and the transfer lands.
      const paid = 25n * TRX;
      devnet.fund(subs[0]!, paid);
      devnet.mine(1);
      const core = restored.container.get(TOKENS.CoreDeps);
      await cacheBalances({ balances: core.balances, clock }, subs[0]!, { TRX: paid });
      const restoredApp = restored.container.get(TOKENS.Application);
      const task = await restoredApp.collections.create(USER, { address: subs[0], asset_symbol: 'TRX' });
      const worker = startComposedWorker(restored, {}, { manual: true });
      try {
        for (let round = 0; round < 30; round += 1) {
          await worker.tick();
          const now = await restoredApp.collections.get(USER, task.task_no);
          if (now.status === COLLECTION_STATUS.DONE || now.status === COLLECTION_STATUS.FAILED) break;
          devnet.mine(1);
          clock.advance(BLOCK_MS);
        }
      } finally {
        await worker.stop();
      }
      const done = await restoredApp.collections.get(USER, task.task_no);
      expect({ status: done.status, error: done.last_error }).toEqual({ status: COLLECTION_STATUS.DONE, error: null });
      // On chain: the sub-address was emptied into the main address by transactions the restored keys signed.
      expect(await core.chain.getTrxBalance(subs[0]!)).toBeLessThan(TRX);
      expect(await core.chain.getTrxBalance(main)).toBeGreaterThan(paid - 2n * TRX);
    } finally {
      await restored.close();
    }
  }, 180_000);

  it('a key that does not derive its address refuses the whole file (nothing written); a wrong identity fails clearly', async () => {
    const b = await fresh('keys_refuse');
    const kek = randomBytes(32).toString('base64');
    const good = { id: 1, user_id: 3, network_code: 'TRON', address_type: 1, label: null, status: 1, created_at: 1_700_000_000_000 };
    const keyA = randomBytes(32).toString('hex');
    const keyB = randomBytes(32).toString('hex');
    privateKeys.push(keyA, keyB);
    const { tronAddressOf } = await import('./key-backup.js');
    const addressA = tronAddressOf(keyA)!;
    const addressB = tronAddressOf(keyB)!;
    // Files as the operator's keys:export would sign them (the signature is what this test is not about).
    const { signBackup, signingKeyFrom } = await import('./backup-signature.js');
    const signingKey = signingKeyFrom(await readFile(signingKeyFile, 'utf8'));
    const write = async (name: string, keys: unknown[], to = recipient): Promise<string> => {
      const encrypter = new Encrypter();
      encrypter.addRecipient(to);
      const path = join(dir, name);
      await writeFile(path, signBackup(armor.encode(await encrypter.encrypt(JSON.stringify({
        format: 'custody-hub-key-backup', version: 1, exported_at: '2026-01-01T00:00:00.000Z', keys,
      }))), signingKey));
      return path;
    };
    const restoreArgs = (file: string, identityPath = identityFile): string[] =>
      ['--in', file, '--identity', identityPath, '--verify-key', verifyKeyFile, '--restore-empty-store', '--apply'];
    // Entry 2 carries A's key under B's address (a swapped or tampered file).
    const tampered = await write('tampered.age', [
      { address: addressA, private_key: keyA, wallet: good },
      { address: addressB, private_key: keyA, wallet: { ...good, id: 2, address_type: 2 } },
    ]);
    const refused = await tool('hosts/keys/import-main.ts', restoreArgs(tampered), storeEnv(b, kek));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(`keys:import failed: refused ${addressB}: its private key does not derive this address; nothing imported\n`);
    const client = new pg.Client({ connectionString: b.url });
    await client.connect();
    try {
      expect((await client.query('SELECT count(*)::int AS n FROM wallet_addresses')).rows).toEqual([{ n: 0 }]);
    } finally {
      await client.end();
    }

    // The right file, opened with an identity it was not encrypted to.
    const other = await generateIdentity();
    const otherFile = join(dir, 'other.agekey');
    await writeFile(otherFile, `${other}\n`);
    const sound = await write('sound.age', [{ address: addressA, private_key: keyA, wallet: good }]);
    const wrong = await tool('hosts/keys/import-main.ts', restoreArgs(sound, otherFile), storeEnv(b, kek));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe('keys:import failed: the age identity does not open this backup (it was encrypted to another recipient, or the file is damaged)\n');
    expect(wrong.stdout + wrong.stderr).not.toContain(other);

    // The same file with the right identity lands; a file naming another address for that wallet is refused (exit 3).
    expect((await tool('hosts/keys/import-main.ts', restoreArgs(sound), storeEnv(b, kek))).code).toBe(0);
    const keyC = randomBytes(32).toString('hex');
    privateKeys.push(keyC);
    const clash = await write('clash.age', [{ address: tronAddressOf(keyC)!, private_key: keyC, wallet: good }]);
    const conflict = await tool('hosts/keys/import-main.ts', ['--in', clash, '--identity', identityFile, '--verify-key', verifyKeyFile, '--apply'], storeEnv(b, kek));
    expect(conflict.code).toBe(3);
    expect(JSON.parse(conflict.stdout.trim().split('\n')[1]!)).toMatchObject({ restored: 0, conflicts: [{ address: tronAddressOf(keyC) }] });
    // The decrypted file is what the tool read: a sanity check that the identity file format is the age-keygen one.
    const decrypter = new Decrypter();
    decrypter.addIdentity(identity);
    const agePart = (await readFile(sound, 'utf8')).split('-----BEGIN CUSTODY HUB BACKUP SIGNATURE-----')[0]!;
    expect(JSON.parse(await decrypter.decrypt(armor.decode(agePart), 'text')).keys).toHaveLength(1);
  }, 120_000);

  it('the attack of the security review: a forged backup, encrypted to the public recipient, restores nothing (issue #35 item 6)', async () => {
    // The store of a live deployment: user 7 exists and has no main address yet.
    const kek = randomBytes(32).toString('base64');
    const database = await fresh('keys_forged');
    const live = await compose(database, kek, new ManualClock());
    await live.container.get(TOKENS.Application).subscriptions.activate(USER, { service_code: 'sub_address' });
    await live.close();
    // The thief knows the operator's age recipient (not a secret) and writes their own key in as user 7's main address.
    const thiefKey = randomBytes(32).toString('hex');
    privateKeys.push(thiefKey);
    const { tronAddressOf } = await import('./key-backup.js');
    const thiefAddress = tronAddressOf(thiefKey)!;
    const encrypter = new Encrypter();
    encrypter.addRecipient(recipient);
    const forged = join(dir, 'forged.age');
    await writeFile(forged, armor.encode(await encrypter.encrypt(JSON.stringify({
      format: 'custody-hub-key-backup', version: 1, exported_at: '2026-01-01T00:00:00.000Z',
      keys: [{ address: thiefAddress, private_key: thiefKey, wallet: { id: 1, user_id: USER, network_code: 'TRON', address_type: 1, label: null, status: 1, created_at: 1_700_000_000_000 } }],
    }))));
    const walletsIn = async (): Promise<number> => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query('SELECT count(*)::int AS n FROM wallet_addresses')).rows[0].n as number;
      } finally {
        await client.end();
      }
    };
    const args = ['--in', forged, '--identity', identityFile, '--verify-key', verifyKeyFile, '--apply'];
    const refused = await tool('hosts/keys/import-main.ts', args, storeEnv(database, kek));
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^keys:import failed: the backup is not signed/);
    // Even told to restore a whole empty store, the signature still decides.
    const empty = await fresh('keys_forged_empty');
    const intoEmpty = await tool('hosts/keys/import-main.ts', [...args, '--restore-empty-store'], storeEnv(empty, kek));
    expect(intoEmpty.code).toBe(1);
    expect(await walletsIn()).toBe(0);
  }, 120_000);
});
