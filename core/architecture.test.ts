import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, resolve, dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const coreDir = dirname(fileURLToPath(import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every module specifier in static imports, re-exports and dynamic imports. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\bfrom\s+['"]([^'"]+)['"]/g, /\bimport\s+['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

describe('architecture: core/ is framework-free', () => {
  const files = tsFiles(coreDir);

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it('imports only core/ and node: built-ins', () => {
    const offenders: string[] = [];
    for (const file of files) {
      for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
        if (spec.startsWith('node:')) continue;
        if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec);
          if (!relative(coreDir, target).startsWith('..')) continue;
        }
        offenders.push(`${relative(coreDir, file)} -> ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the import scanner sees every import form (so the check above can fail)', () => {
    const sample = `import a from 'h3';\nexport { b } from "../adapters/x.js";\nimport 'reflect-metadata';\nconst c = await import('ioredis');`;
    expect(importSpecifiers(sample)).toEqual(['h3', '../adapters/x.js', 'reflect-metadata', 'ioredis']);
  });
});

const repoDir = resolve(coreDir, '..');

/**
 * The packages each adapter drives. An adapter imports core/, node: built-ins, these and its own folder; a new adapter
 * folder, or a new driver of one, is declared here.
 */
const DRIVER_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  http: [],
  memory: [],
  mongodb: ['mongodb'],
  node: ['nodemailer', 'smtp-server', 'otpauth'],
  postgres: ['pg', 'node-pg-migrate'],
  records: [],
  redis: ['ioredis'],
  // tiny-secp256k1: libsecp256k1 for signing (tron) and signer recovery (tron-devnet), beside tronweb's own.
  tron: ['tronweb', 'tiny-secp256k1'],
  'tron-devnet': ['tronweb', 'tiny-secp256k1'],
};

/** Test support (a file in a `testing/` folder) may also use these and contracts-tests/; production code never imports it. */
const TEST_TOOLING: readonly string[] = ['vitest', 'fast-check'];

/** The only imports from one adapter's folder into another's (`from`: an adapter folder, or a file in one), and why. */
const ALLOWED_CROSSINGS: readonly { readonly from: string; readonly to: string; readonly reason: string }[] = [
  { from: 'postgres', to: 'records', reason: 'records is shared by design: the durable stores\' record codecs and unit-of-work helpers, one stored shape for both' },
  { from: 'mongodb', to: 'records', reason: 'records is shared by design: the durable stores\' record codecs and unit-of-work helpers, one stored shape for both' },
  ...(['node', 'tron', 'tron-devnet'] as const).map((to) => ({
    from: 'memory/testing/memory-test-core.ts', to,
    reason: 'test support wiring the whole application for core/application tests (memory stores, node crypto, TRON on the '
      + 'devnet). TODO: belongs with the composition-level test harness; its importers are core/application tests',
  })),
];

/** A test file: `*.test.ts`, or `*.checks.ts` (tests a test file runs). Tests wire adapters to contract suites and doubles. */
function isTestFile(path: string): boolean {
  return path.endsWith('.test.ts') || path.endsWith('.checks.ts');
}

/** The repository paths that a file's relative imports name (`file` repository-relative, with `/`). */
function relativeTargets(file: string, source: string): string[] {
  return importSpecifiers(source).filter((spec) => spec.startsWith('.')).map((spec) => posix.join(posix.dirname(file), spec));
}

function crossingAllowed(file: string, to: string): boolean {
  return ALLOWED_CROSSINGS.some((c) => c.to === to && (file === `adapters/${c.from}` || file.startsWith(`adapters/${c.from}/`)));
}

/** The imports of one adapter source file (`adapters/<name>/…`, repository-relative) that break the rule, with why. */
function adapterImportOffences(file: string, source: string): string[] {
  const adapter = file.split('/')[1] ?? '';
  const support = file.split('/').includes('testing');
  const offences: string[] = [];
  for (const spec of importSpecifiers(source)) {
    if (spec.startsWith('node:')) continue;
    if (!spec.startsWith('.')) {
      const pkg = spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
      if (!DRIVER_PACKAGES[adapter]?.includes(pkg) && !(support && TEST_TOOLING.includes(pkg))) offences.push(`${file} -> ${spec} (not a driver of ${adapter})`);
      continue;
    }
    const target = posix.join(posix.dirname(file), spec);
    const [top, folder = ''] = target.split('/');
    if (!support && target.split('/').includes('testing')) offences.push(`${file} -> ${spec} (test support in production code)`);
    else if (top === 'core' || (support && top === 'contracts-tests')) continue;
    else if (top !== 'adapters' || (folder !== adapter && !crossingAllowed(file, folder))) offences.push(`${file} -> ${spec}`);
  }
  return offences;
}

describe('architecture: an adapter imports core/, node: built-ins, its drivers and its own folder', () => {
  const adapterNames = readdirSync(join(repoDir, 'adapters')).filter((name) => statSync(join(repoDir, 'adapters', name)).isDirectory());
  const sources = adapterNames.flatMap((name) => tsFiles(join(repoDir, 'adapters', name)))
    .map((path) => relative(repoDir, path).split(sep).join('/'))
    .filter((file) => !isTestFile(file))
    .map((file) => ({ file, source: readFileSync(join(repoDir, file), 'utf8') }));

  it('declares the drivers of every adapter folder, and has source files to check', () => {
    expect(adapterNames.sort()).toEqual(Object.keys(DRIVER_PACKAGES).sort());
    expect(sources.length).toBeGreaterThan(adapterNames.length);
  });

  it('never imports another adapter\'s folder but through an allowed crossing, nor test support from production code', () => {
    expect(sources.flatMap(({ file, source }) => adapterImportOffences(file, source))).toEqual([]);
  });

  it('takes every allowed crossing still (an unused one is deleted, so the list only shrinks with the code)', () => {
    const unused = ALLOWED_CROSSINGS.filter((c) => !sources.some(({ file, source }) => crossingAllowed(file, c.to)
      && relativeTargets(file, source).some((target) => target.startsWith(`adapters/${c.to}/`))));
    expect(unused).toEqual([]);
  });

  it('reports each kind of offence (so the checks above can fail)', () => {
    const offences = (file: string, ...specs: string[]) => adapterImportOffences(file, specs.map((s) => `import '${s}';`).join('\n'));
    expect(offences('adapters/redis/redis-x.ts', 'ioredis', 'node:net', '../../core/ports/clock.port.js', './redis-client.js')).toEqual([]);
    expect(offences('adapters/postgres/pg-x.ts', '../records/account-record.js', './pg-support.js')).toEqual([]);
    expect(offences('adapters/postgres/testing/pg-y.ts', 'vitest', '../../../contracts-tests/harness/postgres.js', '../pg-connection.js')).toEqual([]);
    expect(offences('adapters/tron/tron-x.ts', '../node/index.js', 'pg', 'vitest', '../../contracts-tests/support/fixtures.js',
      '../../hosts/composition/container.js', './testing/helpers.js', '../../core/application/testing/index.js', 'crypto')).toEqual([
      'adapters/tron/tron-x.ts -> ../node/index.js',
      'adapters/tron/tron-x.ts -> pg (not a driver of tron)',
      'adapters/tron/tron-x.ts -> vitest (not a driver of tron)',
      'adapters/tron/tron-x.ts -> ../../contracts-tests/support/fixtures.js',
      'adapters/tron/tron-x.ts -> ../../hosts/composition/container.js',
      'adapters/tron/tron-x.ts -> ./testing/helpers.js (test support in production code)',
      'adapters/tron/tron-x.ts -> ../../core/application/testing/index.js (test support in production code)',
      'adapters/tron/tron-x.ts -> crypto (not a driver of tron)',
    ]);
    expect(offences('adapters/memory/testing/memory-test-core.ts', '../../tron/index.js')).toEqual([]);
    expect(offences('adapters/memory/testing/other.ts', '../../tron/index.js')).toEqual(['adapters/memory/testing/other.ts -> ../../tron/index.js']);
  });
});

/**
 * A host's deep imports of adapter files, each a TODO: import it through the adapter's index.ts (export it there when
 * it is not yet), then delete the entry. The list only shrinks: an entry no longer taken fails the suite (issue #39
 * item 4 added the rule and listed what stood then).
 */
const HOST_DEEP_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  'hosts/api/conformance-envelope.test.ts': ['adapters/tron/tronweb-chain-gateway.js'],
  'hosts/api/password-reset.test.ts': ['adapters/node/local-smtp-receiver.js'],
  'hosts/api/registration-squatting.attack.test.ts': ['adapters/node/local-smtp-receiver.js'],
  'hosts/audit/audit-crash-child.ts': ['adapters/postgres/pg-connection.js'],
  'hosts/audit/pg-test-application.ts': ['adapters/postgres/create-postgres-adapters.js', 'adapters/postgres/pg-connection.js'],
  'hosts/cluster/crash.integration.test.ts': ['adapters/postgres/pg-audit-log.js', 'adapters/postgres/pg-connection.js', 'adapters/tron-devnet/prng.js'],
  'hosts/cluster/multi-process-cluster.integration.test.ts': ['adapters/mongodb/collections.js'],
  'hosts/composition/config.ts': ['adapters/postgres/pg-connection.js', 'adapters/tron-devnet/rental-itrx.js', 'adapters/tron-devnet/rental-tronsave.js'],
  'hosts/composition/container-mongodb.integration.test.ts': ['adapters/mongodb/mongo-scan-cursor-store.js'],
  'hosts/composition/container-postgres.integration.test.ts': [
    'adapters/postgres/pg-account-repository.js', 'adapters/postgres/pg-scan-cursor-store.js', 'adapters/postgres/pg-wallet-repository.js',
  ],
  'hosts/composition/container.test.ts': [
    'adapters/postgres/pg-account-repository.js', 'adapters/postgres/pg-idempotency-store.js', 'adapters/postgres/pg-scan-cursor-store.js',
    'adapters/postgres/pg-wallet-repository.js',
  ],
  'hosts/composition/container.ts': ['adapters/mongodb/mongo-scan-cursor-store.js'],
  'hosts/production-entry.test.ts': ['adapters/node/local-smtp-receiver.js'],
  'hosts/serve/start-serve.ts': ['adapters/postgres/pg-connection.js'],
  'hosts/worker/collection-crash.e2e.test.ts': ['adapters/tron/tron-block-source.js'],
  'hosts/worker/hostile-schedule.e2e.test.ts': ['adapters/tron-devnet/node-faults.js', 'adapters/tron/tron-block-source.js'],
  'hosts/worker/jobs/balance-scan.ts': ['adapters/tron/tron-block-source.js', 'adapters/tron/tron-node-pool.js'],
  'hosts/worker/jobs/webhooks.test.ts': ['adapters/node/aes-gcm-key-cipher.js', 'adapters/node/node-dns-resolver.js'],
  'hosts/worker/webhook-e2e-fixture.ts': ['adapters/node/node-dns-resolver.js'],
  'hosts/worker/withdrawal-approval.e2e.test.ts': ['adapters/http/http-webhook-transport.js', 'adapters/http/local-webhook-receiver.js'],
};

/**
 * The adapter files a host file (`hosts/…`, repository-relative) imports other than through the adapter's index.ts.
 * An adapter's `testing/` folder is its test support, a surface of its own for tests, and is not counted.
 */
export function hostDeepImports(file: string, source: string): string[] {
  return relativeTargets(file, source).filter((target) => {
    const [top, , ...rest] = target.split('/');
    return top === 'adapters' && rest.join('/') !== 'index.js' && rest[0] !== 'testing';
  });
}

describe('architecture: a host imports an adapter only through its index.ts', () => {
  const sources = tsFiles(join(repoDir, 'hosts')).concat(
    readdirSync(join(repoDir, 'hosts'), { recursive: true }).map(String).filter((name) => name.endsWith('.test.ts')).map((name) => join(repoDir, 'hosts', name)),
  ).map((path) => relative(repoDir, path).split(sep).join('/'))
    .map((file) => ({ file, deep: hostDeepImports(file, readFileSync(join(repoDir, file), 'utf8')) }));

  it('has host files to check, tests among them', () => {
    expect(sources.some(({ file }) => file.startsWith('hosts/keys/') && file.endsWith('.test.ts'))).toBe(true);
    expect(sources.some(({ file }) => file === 'hosts/keys/key-backup-cli.ts')).toBe(true);
  });

  it('imports no adapter file but its index.ts (or its testing/ support), beyond the listed exceptions', () => {
    const offences = sources.flatMap(({ file, deep }) => deep.filter((target) => !(HOST_DEEP_IMPORTS[file] ?? []).includes(target)).map((t) => `${file} -> ${t}`));
    expect(offences).toEqual([]);
  });

  it('takes every listed exception still (an entry no longer taken is deleted, so the list only shrinks)', () => {
    const taken = new Map(sources.map(({ file, deep }) => [file, deep]));
    const stale = Object.entries(HOST_DEEP_IMPORTS).flatMap(([file, targets]) => targets.filter((t) => !(taken.get(file) ?? []).includes(t)).map((t) => `${file} -> ${t}`));
    expect(stale).toEqual([]);
  });

  it('reports a deep import and lets an index.ts or testing/ support through (so the checks above can fail)', () => {
    const source = [
      "import { a } from '../../adapters/postgres/index.js';", "import { b } from '../../adapters/postgres/pg-connection.js';",
      "import { c } from '../../adapters/postgres/testing/pg-test-store.js';", "const d = await import('../../adapters/memory/memory-store.js');",
      "import { e } from '../../core/ports/index.js';",
    ].join('\n');
    expect(hostDeepImports('hosts/keys/x.ts', source)).toEqual(['adapters/postgres/pg-connection.js', 'adapters/memory/memory-store.js']);
  });
});
