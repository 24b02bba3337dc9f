import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig, type HostConfig } from './config.js';
import { CONFIG_VARIABLES, configVariableNames, renderConfigurationDoc } from './config-schema.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The production entry points: the build's roots (tsconfig.build.json `files`; hosts/build-input.test.ts keeps them). */
function buildRoots(): string[] {
  const config = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { files: string[] };
  return config.files;
}

/** The roots and every module they import, transitively. */
function productionSources(roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(join(ROOT, file), 'utf8');
    for (const pattern of [/\bfrom\s+['"](\.[^'"]*)['"]/g, /\bimport\s+['"](\.[^'"]*)['"]/g, /\bimport\(\s*['"](\.[^'"]*)['"]\s*\)/g]) {
      for (const [, spec] of source.matchAll(pattern)) {
        const target = posix.join(posix.dirname(file), spec!).replace(/\.js$/, '.ts');
        if (existsSync(join(ROOT, target))) queue.push(target);
      }
    }
  }
  return [...seen].sort();
}

/** Upper-case words in code that reads the environment but are not variables: errno codes, signals, methods, symbols. */
const NOT_VARIABLES = /^(E[A-Z]+|ERR_[A-Z_]+|SIG[A-Z]+|GET|POST|PUT|DELETE|TRON|TRONSAVE|TRX|USDT)$/;

/**
 * The environment variables a source reads: in a module that handles the environment (it says `env`), every
 * upper-case name quoted or read as `env.NAME`. Validators take the name as an argument (`integer(env, 'PORT', …)`),
 * some through a helper or a list (`endpoint('TRONSAVE_URL', …)`, `for (const gone of [...])`), so every quoted
 * upper-case name counts, but for the words of NOT_VARIABLES.
 */
function environmentReads(source: string): string[] {
  if (!/\benv\b/.test(source)) return [];
  const names = new Set<string>();
  for (const [, name] of source.matchAll(/['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)['"]/g)) names.add(name!);
  for (const [, name] of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)) names.add(name!);
  return [...names].filter((name) => !NOT_VARIABLES.test(name)).sort();
}

describe('docs/configuration.md and the variables the processes read (hosts/composition/config-schema.ts)', () => {
  it('the committed docs/configuration.md is what `npm run docs:config` writes', () => {
    expect(readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8'), 'stale: run npm run docs:config').toBe(renderConfigurationDoc());
  });

  it('every variable a production module reads is listed, and every listed one is read', () => {
    const reads = new Map<string, string[]>();
    for (const file of productionSources(buildRoots())) {
      for (const name of environmentReads(readFileSync(join(ROOT, file), 'utf8'))) reads.set(name, [...(reads.get(name) ?? []), file]);
    }
    const listed = configVariableNames();
    const unlisted = [...reads.keys()].filter((name) => !listed.includes(name)).map((name) => `${name} (read in ${reads.get(name)!.join(', ')})`);
    expect(unlisted, 'read but missing from CONFIG_VARIABLES').toEqual([]);
    expect(listed.filter((name) => !reads.has(name)), 'listed in CONFIG_VARIABLES but never read').toEqual([]);
    expect(reads.get('WORKFLOW_LEASE_S')).toContain('hosts/composition/config.ts');
  });

  /** The default loadConfig applies to a variable left unset, in the unit the variable is written in. */
  const EFFECTIVE_DEFAULT: Readonly<Record<string, (config: HostConfig) => unknown>> = {
    PORT: (c) => c.port, TRUSTED_PROXY_HOPS: (c) => c.trustedProxyHops, STORE: (c) => c.store, DATABASE_POOL_SIZE: (c) => c.databasePoolSize,
    LOCKS: (c) => c.locks, CHAIN: (c) => c.chain, CHAIN_CONFIRMATIONS: (c) => c.chainConfirmations, CHAIN_BLOCK_MS: (c) => c.chainBlockMs,
    ENERGY_PROVIDER: (c) => c.energyProvider, WITHDRAWAL_CONFIRMATIONS: (c) => c.withdrawalConfirmations,
    WORKFLOW_STUCK_AFTER_S: (c) => c.workflowStuckAfterMs / 1_000, WORKFLOW_CONCURRENCY: (c) => c.workflowConcurrency,
    WORKFLOW_LEASE_S: (c) => c.workflowLeaseMs / 1_000, POLICY_CHANGE_DELAY_H: (c) => c.policyChangeDelayMs / 3_600_000,
    WITHDRAWAL_ALLOWLIST_DELAY_H: (c) => c.allowListDelayMs / 3_600_000, LOG_LEVEL: (c) => c.logLevel,
    DEFAULT_SUB_ADDRESS_PLAN: (c) => c.defaultSubAddressPlan, CONSOLE_IDLE_MIN: (c) => c.consoleIdleMs / 60_000,
  };

  it('a documented default is the one loadConfig applies', () => {
    const config = loadConfig({}, { mode: 'dev' });
    for (const [name, effective] of Object.entries(EFFECTIVE_DEFAULT)) {
      const row = CONFIG_VARIABLES.find((v) => v.names.includes(name));
      expect(row?.default.split(' ')[0], name).toBe(String(effective(config)));
    }
    const metrics = CONFIG_VARIABLES.find((v) => v.names.includes('METRICS_PORT'))!.default;
    expect(metrics.startsWith(`${loadConfig({}, { mode: 'dev', role: 'worker' }).metricsPort} for`)).toBe(true);
    expect(metrics.endsWith(`; ${config.metricsHost}`)).toBe(true);
  });

  it('names each variable once, with a meaning, a default and a process that reads it', () => {
    const names = configVariableNames();
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    for (const v of CONFIG_VARIABLES) {
      expect(v.meaning.length * v.default.length * v.readBy.length, v.names.join()).toBeGreaterThan(0);
      expect(`${v.meaning}${v.default}`, v.names.join()).not.toMatch(/\n/);
    }
  });

  it('the scanner sees every way a name is read, and ignores the words that are not variables', () => {
    const source = "const env = process.env;\ninteger(env, 'PORT', 3000);\nenv.FORWARD_RETRY_S;\nendpoint('TRONSAVE_URL');\n"
      + "if (code === 'EADDRINUSE' || signal === 'SIGTERM') kill('TRX');";
    expect(environmentReads(source)).toEqual(['FORWARD_RETRY_S', 'PORT', 'TRONSAVE_URL']);
    expect(environmentReads("const x = 'PORT';")).toEqual([]);
  });

  it('the generated page changes with the list (the comparison above can fail)', () => {
    const fewer = CONFIG_VARIABLES.filter((v) => !v.names.includes('PORT'));
    expect(renderConfigurationDoc(fewer)).not.toBe(renderConfigurationDoc());
    expect(renderConfigurationDoc()).toContain('| `PORT` | API port | 3000 | `npm start`, api, serve |');
  });
});
