import { DEFAULT_CHAIN_CONFIRMATIONS, DEFAULT_DEVNET_URL, DEFAULT_METRICS_HOST, DEFAULT_METRICS_PORT } from './config.js';

/**
 * Every environment variable a Custody Hub process reads: its name, meaning, default and the processes that read it.
 * docs/configuration.md is generated from this list (`npm run docs:config`), and config-schema.test.ts fails when the
 * committed page differs from what the generator writes, when a process reads a variable this list does not name, or
 * when this list names one that nothing reads. Validation stays in config.ts (and the few entry points that read a
 * variable of their own); the defaults it shares as constants are quoted from there.
 */

/** A process that reads the environment, by the npm script that starts it. */
export type ProcessName = 'start' | 'api' | 'worker' | 'serve' | 'devnet' | 'db:migrate' | 'keys' | 'audit:verify' | 'contracts';

/** One row of the table: one variable, or a few that go together (`SMTP_URL`, `MAIL_FROM`). */
export interface ConfigVariable {
  readonly names: readonly string[];
  /** Markdown: what it does, its values and the rules that refuse one. */
  readonly meaning: string;
  /** Markdown: what applies when it is unset. */
  readonly default: string;
  readonly readBy: readonly ProcessName[];
}

/** Every process that validates the environment with loadConfig (keys:* and audit:verify as a worker). */
const CONFIGURED: readonly ProcessName[] = ['start', 'api', 'worker', 'serve', 'keys', 'audit:verify'];
/** The processes that serve the API (the worker serves none, so it reads none of its variables). */
const API_SIDE: readonly ProcessName[] = ['start', 'api', 'serve'];

export const CONFIG_VARIABLES: readonly ConfigVariable[] = [
  {
    names: ['TEST_DEPTH'],
    meaning: 'how hard the property and crash tests search, as a multiple of the counts written in them: `npm test` '
      + 'runs 0.25 (never cutting a count of 10 or less), `npm run test:deep` 1, and more goes deeper; read by the '
      + 'contract suites a tester runs against their own store too (`contracts-tests/support/depth.ts`)',
    default: '0.25',
    readBy: ['contracts'],
  },
  { names: ['PORT'], meaning: 'API port', default: '3000', readBy: API_SIDE },
  {
    names: ['API_HOST'],
    meaning: 'the address `npm run api` and `npm run serve` listen on (`npm start` keeps 127.0.0.1)',
    default: '0.0.0.0',
    readBy: ['api', 'serve'],
  },
  {
    names: ['TRUSTED_PROXY_HOPS'],
    meaning: 'reverse proxies in front of the API that each append the client\'s address to `X-Forwarded-For` (0–10): the '
      + 'per-client-address throttles of register, verify, login and password reset count the address that many entries from '
      + 'the right of the header, never one a client wrote. 0 ignores the header (behind a proxy every client then shares its '
      + 'address). Count only proxies that append; the API port must be reachable only through them (`docs/operations.md`)',
    default: '0',
    readBy: API_SIDE,
  },
  {
    names: ['CONSOLE_IDLE_MIN'],
    meaning: 'minutes a merchant console session (`/console`, its cookie) lives without a request before the server ends it '
      + '(1–1440); background refreshes do not count, and no session outlives 24 h',
    default: '30',
    readBy: API_SIDE,
  },
  {
    names: ['STORE'],
    meaning: '`memory`, `postgres` (with `DATABASE_URL`; PostgreSQL 13 or later) or `mongodb` (with `MONGODB_URL`, replica '
      + 'set; `MONGODB_DB`). A durable store needs `KEY_ENCRYPTION_KEY` even under `npm start`',
    default: 'memory',
    readBy: CONFIGURED,
  },
  {
    names: ['DATABASE_URL'],
    meaning: 'the PostgreSQL database of `STORE=postgres`: `postgres://user:password@host:5432/database` (or `postgresql://`); '
      + 'TLS through `sslmode` in the URL (`sslmode=verify-full`, with `sslrootcert=/path/ca.pem` for a private CA). Never '
      + 'logged; its password is redacted from every message',
    default: 'none (required with `STORE=postgres`)',
    readBy: [...CONFIGURED, 'db:migrate'],
  },
  {
    names: ['DATABASE_POOL_SIZE'],
    meaning: 'connections each process opens to PostgreSQL at most (1–200); all processes together must stay under the '
      + 'server\'s `max_connections` (`docs/operations.md`)',
    default: '10',
    readBy: [...CONFIGURED, 'db:migrate'],
  },
  {
    names: ['MONGODB_URL', 'MONGODB_DB'],
    meaning: 'the MongoDB deployment of `STORE=mongodb` (`mongodb://` or `mongodb+srv://`, a replica set), and its database name',
    default: 'none (required with `STORE=mongodb`); the database in the URL\'s path, else `custody_hub`',
    readBy: CONFIGURED,
  },
  { names: ['LOCKS'], meaning: '`memory` or `redis` (with `REDIS_URL`): address locks and rate limits', default: 'memory', readBy: CONFIGURED },
  { names: ['REDIS_URL'], meaning: 'the Redis of `LOCKS=redis` (`redis://` or `rediss://`)', default: 'none (required with `LOCKS=redis`)', readBy: CONFIGURED },
  {
    names: ['CHAIN'],
    meaning: '`devnet` or `tronweb` (with `TRON_FULL_HOST`, optional `TRON_API_KEY`, `USDT_CONTRACT`). On `devnet`, '
      + '`TRON_FULL_HOST` defaults to `http://127.0.0.1:8090` (`npm run devnet`); `npm run serve`, `api` and `worker` wait for '
      + 'it and take its own USDT contract (never mainnet\'s), and `serve` and `api` serve its faucet, `POST /dev/faucet` '
      + '(never on `tronweb`; `docs/operations.md`, "`npm run serve` on the devnet"). `npm start` always runs its own devnet '
      + 'and refuses another `CHAIN`',
    default: 'devnet',
    readBy: CONFIGURED,
  },
  {
    names: ['TRON_FULL_HOST'],
    meaning: 'the TRON node the workflows use (`http://` or `https://`); ignored by `npm start`, which uses its in-process devnet',
    default: `\`${DEFAULT_DEVNET_URL}\` on \`CHAIN=devnet\`; required on \`tronweb\``,
    readBy: CONFIGURED,
  },
  {
    names: ['TRON_API_KEY'],
    meaning: 'TronGrid\'s API key, sent as `TRON-PRO-API-KEY` (printable ASCII without spaces)',
    default: 'none',
    readBy: CONFIGURED,
  },
  {
    names: ['USDT_CONTRACT'],
    meaning: 'the USDT-TRC20 contract (a base58 TRON address)',
    default: 'mainnet\'s USDT contract; on `CHAIN=devnet` the devnet\'s own',
    readBy: CONFIGURED,
  },
  {
    names: ['TRON_SOLIDITY_HOST'],
    meaning: 'where the node serves `/walletsolidity/*` (solidified reads; built transactions reference the solidified block): '
      + 'a self-hosted java-tron serves it on its own port, 8091',
    default: '`TRON_FULL_HOST`',
    readBy: CONFIGURED,
  },
  {
    names: ['TRON_PRO_TIER_KEY', 'TRON_PRO_TIER_HOST'],
    meaning: 'a data-provider key with which wallet resources list who delegated to whom, and where it is sent',
    default: 'none (lists empty); `TRON_FULL_HOST`',
    readBy: CONFIGURED,
  },
  {
    names: ['TRON_FULL_HOSTS'],
    meaning: 'nodes the balance scanner reads, in order of preference: comma-separated `url` or `url\\|solidity-url`; a failing '
      + 'or rate-limited node is skipped with backoff (its Retry-After when it sends one). The workflows use `TRON_FULL_HOST` '
      + 'first and the other entries as fallbacks, the same way. Internal TRX transfers need nodes with `vm.saveInternalTx` '
      + '(TronGrid has it)',
    default: '`TRON_FULL_HOST` with `TRON_SOLIDITY_HOST`',
    readBy: CONFIGURED,
  },
  {
    names: ['TRON_NODE_DAILY_CALLS'],
    meaning: 'calls each scanner node may take per UTC day (a provider\'s quota); a node that spent it is skipped until the next day',
    default: 'no budget',
    readBy: CONFIGURED,
  },
  {
    names: ['HTTP_PROXY', 'HTTPS_PROXY'],
    meaning: 'set (or in lower case), requests to the TRON nodes go through tronweb\'s axios client, which honours the proxy, '
      + 'instead of node:http with keep-alive (`docs/operations.md`, "TRON nodes")',
    default: 'none',
    readBy: ['start', 'api', 'worker', 'serve'],
  },
  {
    names: ['CHAIN_CONFIRMATIONS'],
    meaning: 'blocks a collection step waits for (`npm start`: 1)',
    default: `${DEFAULT_CHAIN_CONFIRMATIONS} (solidified)`,
    readBy: CONFIGURED,
  },
  {
    names: ['CHAIN_BLOCK_MS'],
    meaning: 'the workflows read the head, and state that cannot change within a block (accounts, resources, dry runs), at '
      + 'most once per this interval and per block, shared by every workflow; a newer block seen by the scanner or in a '
      + 'transaction lookup ends it sooner. `0` turns it off (`npm start`: the devnet\'s `DEVNET_BLOCK_MS`)',
    default: '3000',
    readBy: CONFIGURED,
  },
  {
    names: ['ENERGY_PROVIDER'],
    meaning: '`self` (self-delegation from the main address\'s stake only); `rental` (self-delegation, else every configured '
      + 'rental provider, the cheapest quote first; on `CHAIN=devnet` the devnet\'s simulations of both); or rental providers '
      + 'by name in fallback order: `tronsave`, `itrx`, `itrx,tronsave` (see `docs/rental-providers.md`)',
    default: 'self',
    readBy: CONFIGURED,
  },
  {
    names: ['TRONSAVE_API_KEY', 'TRONSAVE_URL'],
    meaning: 'TronSave\'s internal-account API key (required for `tronsave` outside the devnet) and API root',
    default: 'none; TronSave\'s documented root (the devnet\'s URL on `CHAIN=devnet`)',
    readBy: CONFIGURED,
  },
  {
    names: ['ITRX_API_KEY', 'ITRX_API_SECRET', 'ITRX_URL'],
    meaning: 'itrx\'s API key and HMAC secret (both required for `itrx` outside the devnet) and API root',
    default: 'none; itrx\'s documented root (the devnet\'s URL on `CHAIN=devnet`)',
    readBy: CONFIGURED,
  },
  {
    names: ['ENERGY_RENTAL_URL', 'ENERGY_RENTAL_API_KEY'],
    meaning: 'no longer read (the generic rental API is gone): set, either stops the process with a message naming '
      + '`TRONSAVE_API_KEY` and `ITRX_API_KEY`',
    default: 'unset',
    readBy: CONFIGURED,
  },
  {
    names: ['ENERGY_RENTAL_MAX_PRICE_SUN'],
    meaning: 'the most one sweep may pay a rental provider, in SUN; dearer quotes are not taken',
    default: 'no cap',
    readBy: CONFIGURED,
  },
  {
    names: ['ENERGY_BURN'],
    meaning: '`true`: when neither self-delegation nor rental covers a collection\'s energy, burn TRX for it',
    default: 'off',
    readBy: CONFIGURED,
  },
  {
    names: ['ENERGY_BURN_MAX_SUN'],
    meaning: 'with `ENERGY_BURN`: the most one sweep may burn for its energy; the sweep planner does not choose burning above it',
    default: 'no cap',
    readBy: CONFIGURED,
  },
  {
    names: ['WITHDRAWAL_CONFIRMATIONS'],
    meaning: '`0`: a withdrawal is SUCCESS (`withdrawal.completed`) once a node accepts its broadcast (spec §6); `N`: once it '
      + 'is N blocks deep, so a transaction a node accepted and then lost is not reported paid',
    default: '0',
    readBy: CONFIGURED,
  },
  {
    names: ['WORKFLOW_STUCK_AFTER_S'],
    meaning: 'a workflow step unsettled this long (a sent transaction the chain has not settled, a step that keeps failing) '
      + 'is logged as `workflow stuck`, once per period; it is never failed for it (docs/decisions.md 45, 49)',
    default: '900',
    readBy: CONFIGURED,
  },
  {
    names: ['WORKFLOW_CONCURRENCY'],
    meaning: 'collection stages one worker runs at once, each on its own leased task (1–64; `bench:collection` measures '
      + '1,000 concurrent sweeps)',
    default: '4',
    readBy: CONFIGURED,
  },
  {
    names: ['WORKFLOW_LEASE_S'],
    meaning: 'how long a worker\'s claim on a workflow lasts (5–3600): a worker that dies holds its claims (and the '
      + 'collections it keeps between stages, from when they fall due) this long before another takes them over; a stage '
      + 'outlasting it may be taken over while it runs, which the version fence and the write-ahead record keep safe',
    default: '60',
    readBy: CONFIGURED,
  },
  {
    names: ['KEY_ENCRYPTION_KEY'],
    meaning: 'AES-256 key, base64, or `id:base64,…` for rotation; required outside `npm start`',
    default: 'generated in dev',
    readBy: CONFIGURED,
  },
  {
    names: ['KEY_ENCRYPTION_KEY_FILE'],
    meaning: 'a file holding `KEY_ENCRYPTION_KEY` (Docker/Kubernetes secrets); not with `KEY_ENCRYPTION_KEY`. '
      + '`npm run keys:rotate` re-wraps every stored secret under the first (newest) id: see `docs/operations.md`',
    default: 'none',
    readBy: CONFIGURED,
  },
  {
    names: ['ADMIN_TOKEN'],
    meaning: 'bearer token of the `/api/admin` endpoints (≥ 32 characters); required outside `npm start`',
    default: 'generated in dev',
    readBy: API_SIDE,
  },
  {
    names: ['SMTP_URL', 'MAIL_FROM'],
    meaning: 'where verification mail goes (`smtp://user:pass@host:587`, STARTTLS when offered, or `smtps://…:465`) and its '
      + 'From address; required by a production API (codes are never logged there)',
    default: 'none: `npm start` prints codes (console mailer, development only)',
    readBy: CONFIGURED,
  },
  {
    names: ['WEBHOOK_ALLOW_LOCAL'],
    meaning: '`true` lets webhooks reach loopback/plain http (development only)',
    default: 'off',
    readBy: CONFIGURED,
  },
  {
    names: ['POLICY_CHANGE_DELAY_H'],
    meaning: 'hours a loosening of a withdrawal policy (allow-list off, a limit raised or removed, a new approver URL or '
      + 'secret) waits as a pending change before it takes effect; cancellable meanwhile (0-8760; 0 only in development, '
      + 'refused in production)',
    default: '24',
    readBy: CONFIGURED,
  },
  {
    names: ['WITHDRAWAL_ALLOWLIST_DELAY_H'],
    meaning: 'hours before a destination added to an account\'s withdrawal allow-list may be paid (0-8760; 0 only in '
      + 'development, refused in production; docs/decisions.md 111)',
    default: '24',
    readBy: CONFIGURED,
  },
  {
    names: ['ALLOW_EPHEMERAL'],
    meaning: '`true`: production accepts the memory store with `CHAIN=tronweb` (every private key is lost at restart), in a '
      + 'separate `npm run api`/`npm run worker` process (the two share nothing) or in `npm run serve` (everything is lost at '
      + 'restart); refused otherwise',
    default: 'off',
    readBy: CONFIGURED,
  },
  {
    names: ['LOG_LEVEL'],
    meaning: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`',
    default: 'info',
    readBy: CONFIGURED,
  },
  {
    names: ['METRICS_PORT', 'METRICS_HOST'],
    meaning: 'the separate port of Prometheus `/metrics` (and the worker\'s `/healthz`), and the address it listens on: keep it '
      + 'off the public network (`0.0.0.0` for a scraper on a container network, as `compose.yaml` sets)',
    default: `${DEFAULT_METRICS_PORT} for \`npm run api\`/\`npm run worker\`/\`npm run serve\`, off in \`npm start\`; ${DEFAULT_METRICS_HOST}`,
    readBy: CONFIGURED,
  },
  {
    names: ['DEFAULT_SUB_ADDRESS_PLAN'],
    meaning: 'the `sub_address` plan `POST /subscriptions/activate` gives without `plan_code`: `starter` (10 sub-addresses), '
      + '`pro` (1,000) or `unlimited` (a self-hosted deployment with no reason to cap its own accounts)',
    default: 'starter',
    readBy: CONFIGURED,
  },
  {
    names: ['WORKER_STOP_DEADLINE_S'],
    meaning: 'how long a stopping worker waits for the stage in flight before exiting (leases hand it on); keep it under the '
      + 'orchestrator\'s grace period',
    default: '20',
    readBy: ['worker', 'serve'],
  },
  {
    names: ['NODE_ENV'],
    meaning: '`development` lets `npm run api`/`npm run worker`/`npm run serve` generate missing secrets',
    default: 'production',
    readBy: ['api', 'worker', 'serve'],
  },
  {
    names: ['BALANCE_SCAN_START'],
    meaning: 'where a new deployment\'s balance scanner starts (a block number, or `head`); a restart always resumes from its '
      + 'persisted cursor',
    default: 'head',
    readBy: ['worker', 'serve'],
  },
  {
    names: ['BALANCE_SCAN_LEVEL'],
    meaning: '`head` or `solidified`: the depth at which the balance scanner credits deposits (cached balances are the '
      + 'chain\'s at that depth; at `head` a reorg is rolled back)',
    default: 'head',
    readBy: ['start', 'worker', 'serve'],
  },
  {
    names: ['FORWARD_RETRY_S'],
    meaning: 'seconds before a paid payment request\'s forward, refused for want of energy, is tried again; doubled per '
      + 'refusal up to 10 minutes (docs/operations.md, "Energy: choose one")',
    default: '15',
    readBy: ['worker', 'serve'],
  },
  {
    names: ['KEY_BACKUP_RECIPIENTS', 'BACKUP_SIGNING_KEY_FILE'],
    meaning: '`npm run keys:export`: the age public keys (`age1…`, comma-separated) a key backup is encrypted to, and the '
      + 'operator\'s Ed25519 signing key (PEM) that signs it (or `--recipient`, `--signing-key`; docs/operations.md, '
      + '"Disaster recovery")',
    default: 'none (a recipient is required, and the signing key)',
    readBy: ['keys'],
  },
  {
    names: ['KEY_BACKUP_IDENTITY_FILE', 'BACKUP_VERIFY_KEY_FILE'],
    meaning: '`npm run keys:import`: the age identity that opens a backup, and the Ed25519 public key its signature must '
      + 'verify under (or `--identity`, `--verify-key`)',
    default: 'none (both are required)',
    readBy: ['keys'],
  },
  {
    names: ['DEVNET_PORT', 'DEVNET_BLOCK_MS', 'DEVNET_SEED'],
    meaning: 'the embedded devnet of `npm start` / `npm run devnet`: its port, a block every this many ms (`npm run devnet`: 0 '
      + 'is manual mode), and its seed',
    default: '8090, 3000, fixed',
    readBy: ['start', 'devnet'],
  },
  {
    names: ['DEVNET_HOST', 'DEVNET_SOLIDITY_PORT'],
    meaning: '`npm run devnet`: the address it listens on, and a port of its own for `/walletsolidity/*` (the full node then '
      + 'stops serving it, as java-tron\'s 8090/8091)',
    default: '127.0.0.1; none (the full node serves it)',
    readBy: ['devnet'],
  },
];

/** The process column's words. */
const PROCESS_LABEL: Readonly<Record<ProcessName, string>> = {
  start: '`npm start`', api: 'api', worker: 'worker', serve: 'serve', devnet: 'devnet', 'db:migrate': 'db:migrate',
  keys: 'keys:*', 'audit:verify': 'audit:verify', contracts: 'the exported contract suites',
};
const PROCESS_ORDER = Object.keys(PROCESS_LABEL) as ProcessName[];

/** Every variable named by the list, in its order. */
export function configVariableNames(variables: readonly ConfigVariable[] = CONFIG_VARIABLES): string[] {
  return variables.flatMap((v) => v.names);
}

/** docs/configuration.md, as `npm run docs:config` writes it. */
export function renderConfigurationDoc(variables: readonly ConfigVariable[] = CONFIG_VARIABLES): string {
  const cell = (text: string): string => text.replace(/\n/g, ' ');
  const rows = variables.map((v) => {
    const readBy = PROCESS_ORDER.filter((p) => v.readBy.includes(p)).map((p) => PROCESS_LABEL[p]).join(', ');
    return `| ${v.names.map((n) => `\`${n}\``).join(', ')} | ${cell(v.meaning)} | ${cell(v.default)} | ${readBy} |`;
  });
  return [
    '# Configuration (environment)',
    '',
    '<!-- Generated by `npm run docs:config` from hosts/composition/config-schema.ts: edit that list, not this page. -->',
    '',
    'A bad value stops the process at start with one message naming every bad variable (exit status 2). Each process',
    'asks only for what it uses (`npm run worker` needs no `ADMIN_TOKEN`). For a production deployment see',
    '`docs/operations.md`; for what `npm start` sets up by itself, `docs/development.md`.',
    '',
    'Processes: `npm start` (the embedded default), api (`npm run api`, `start:api`), worker (`npm run worker`,',
    '`start:worker`), serve (`npm run serve`, `start:serve`), devnet (`npm run devnet`), db:migrate, keys:* (`keys:rotate`,',
    '`keys:export`, `keys:import`) and audit:verify.',
    '',
    '| variable | meaning | default | read by |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
