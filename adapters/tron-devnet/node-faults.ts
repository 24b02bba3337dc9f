/**
 * Node-call faults: scripted failures, seeded random failures (chaos) and a TronGrid-style request quota, decided
 * per `/wallet/*` or `/walletsolidity/*` call before the node handles it. The server turns a decision into a socket
 * reset, a held socket, an HTTP error body (see trongrid.ts) or a reply that is lost after processing.
 */
import { draw, drawInt } from './prng.js';

/** What a failing node call does. */
export type NodeFaultKind =
  /** Socket destroyed before any reply (request NOT processed). */
  | 'reset'
  /** Request held open with no reply for `hold_ms` (default 10,000 real ms), then destroyed; not processed. */
  | 'timeout'
  /** TronGrid over-quota answers: real status, TronGrid's body and a Retry-After header (not processed). */
  | 'http_403'
  | 'http_429'
  /** Server or proxy failure, not processed. */
  | 'http_500'
  | 'http_502'
  | 'http_503'
  /** HTTP 200 with a java-tron/TronGrid style `{"Error": "..."}` body, not processed. */
  | 'error_body'
  /** The request IS processed (a broadcast reaches the pool and will be mined), then the socket is destroyed before the reply. */
  | 'lost_reply';

/** Every {@link NodeFaultKind}, for validation and for tests that walk them all. */
export const NODE_FAULT_KINDS: readonly NodeFaultKind[] = [
  'reset', 'timeout', 'http_403', 'http_429', 'http_500', 'http_502', 'http_503', 'error_body', 'lost_reply',
];

/** One scripted failure. */
export interface NodeFaultRule {
  /** 'wallet/broadcasttransaction', 'walletsolidity/gettransactioninfobyid', 'wallet/*', 'walletsolidity/*' or '*' (case-insensitive endpoint names as java-tron). */
  path: string;
  kind: NodeFaultKind;
  /** How many matching calls it fails (default 1); the rule is removed once used up. */
  times?: number;
  /** For 'timeout': real ms to hold before destroying the socket (default 10,000). */
  hold_ms?: number;
  /** Devnet addition: the Retry-After seconds of an 'http_403'/'http_429' answer (default 1). */
  retry_after_s?: number;
}

/** Seeded random failures. */
export interface ChaosFaults {
  /** Probability (0..1) that a node call fails. */
  rate: number;
  /** Kinds drawn uniformly for a failing call. */
  kinds: NodeFaultKind[];
  /** PRNG seed: the same seed and the same call sequence give the same faults. */
  seed: string;
  /** Path patterns (as {@link NodeFaultRule.path}) that chaos may hit; default every node call. */
  paths?: string[];
}

/** A TronGrid-style quota on node calls per window of virtual time. */
export interface RateLimitFaults {
  budget: number;
  window_ms: number;
  status: 403 | 429;
}

/** What the server does with one node call. */
export type NodeCallDecision =
  | { action: 'serve'; lostReply: boolean }
  | { action: 'fail'; kind: Exclude<NodeFaultKind, 'lost_reply'>; holdMs: number; retryAfterS: number }
  | { action: 'quota'; status: 403 | 429; budget: number; retryAfterS: number };

/** The fault settings the gate reads (a view of the chain's faults). */
export interface NodeFaultSettings {
  script: NodeFaultRule[];
  chaos: ChaosFaults | null;
  rate_limit: RateLimitFaults | null;
}

const DEFAULT_HOLD_MS = 10_000;

/** Whether a rule pattern matches a call path such as 'wallet/getnowblock' (both compared case-insensitively). */
export function pathMatches(pattern: string, call: string): boolean {
  const p = pattern.trim().replace(/^\/+/, '').toLowerCase();
  const c = call.replace(/^\/+/, '').toLowerCase();
  if (p === '*') return true;
  if (p.endsWith('/*')) return c.startsWith(p.slice(0, -1));
  return p === c;
}

const fail = (msg: string): never => {
  throw new Error(msg);
};

function kindOf(x: unknown, where: string): NodeFaultKind {
  return NODE_FAULT_KINDS.includes(x as NodeFaultKind) ? (x as NodeFaultKind) : fail(`${where}: unknown kind ${JSON.stringify(x)}`);
}

function nonNegInt(x: unknown, where: string): number {
  const n = Number(x);
  return Number.isSafeInteger(n) && n >= 0 ? n : fail(`${where} must be a non-negative integer`);
}

function pattern(x: unknown, where: string): string {
  const p = typeof x === 'string' ? x.trim() : '';
  return /^\/?(\*|(wallet|walletsolidity)\/(\*|[a-z0-9]+))$/i.test(p) ? p : fail(`${where}: invalid path ${JSON.stringify(x)}`);
}

/** Validates a script (copying every rule, so consuming it never touches the caller's objects). */
export function parseScript(x: unknown): NodeFaultRule[] {
  if (!Array.isArray(x)) return fail('script must be an array of rules');
  return x.map((r: unknown, i) => {
    const rule = (r ?? {}) as Record<string, unknown>;
    const out: NodeFaultRule = { path: pattern(rule['path'], `script[${i}]`), kind: kindOf(rule['kind'], `script[${i}]`) };
    out.times = rule['times'] === undefined ? 1 : nonNegInt(rule['times'], `script[${i}].times`);
    if (out.times === 0) fail(`script[${i}].times must be at least 1`);
    if (rule['hold_ms'] !== undefined) out.hold_ms = nonNegInt(rule['hold_ms'], `script[${i}].hold_ms`);
    if (rule['retry_after_s'] !== undefined) out.retry_after_s = nonNegInt(rule['retry_after_s'], `script[${i}].retry_after_s`);
    return out;
  });
}

/** Validates chaos settings; null turns chaos off. */
export function parseChaos(x: unknown): ChaosFaults | null {
  if (x === null) return null;
  const c = (x ?? {}) as Record<string, unknown>;
  const rate = Number(c['rate']);
  if (!(rate >= 0 && rate <= 1)) fail('chaos.rate must be between 0 and 1');
  const kinds = Array.isArray(c['kinds']) ? c['kinds'].map((k) => kindOf(k, 'chaos.kinds')) : [];
  if (kinds.length === 0) fail('chaos.kinds must list at least one kind');
  if (typeof c['seed'] !== 'string') fail('chaos.seed must be a string');
  const out: ChaosFaults = { rate, kinds, seed: c['seed'] as string };
  if (c['paths'] !== undefined) {
    if (!Array.isArray(c['paths'])) fail('chaos.paths must be an array');
    out.paths = (c['paths'] as unknown[]).map((p, i) => pattern(p, `chaos.paths[${i}]`));
  }
  return out;
}

/** Validates a quota; null turns it off. */
export function parseRateLimit(x: unknown): RateLimitFaults | null {
  if (x === null) return null;
  const r = (x ?? {}) as Record<string, unknown>;
  const budget = nonNegInt(r['budget'], 'rate_limit.budget');
  const windowMs = nonNegInt(r['window_ms'], 'rate_limit.window_ms');
  if (windowMs === 0) fail('rate_limit.window_ms must be positive');
  const status = Number(r['status'] ?? 429);
  if (status !== 403 && status !== 429) fail('rate_limit.status must be 403 or 429');
  return { budget, window_ms: windowMs, status: status as 403 | 429 };
}

/**
 * Decides the fate of each node call, in this order: a scripted rule (the first that matches, consumed), then
 * chaos, then the quota. A call failed by a rule or by chaos is not processed and does not count against the
 * quota; a call the quota refuses is not processed and does not count either; every processed call (including a
 * 'lost_reply') counts.
 */
export class NodeFaultGate {
  private chaosCalls = 0;
  private windowStart = Number.NaN;
  private used = 0;
  private servedCalls = 0;
  private readonly servedByName = new Map<string, number>();

  constructor(
    private readonly settings: NodeFaultSettings,
    /** Virtual time (the head block's timestamp). */
    private readonly now: () => number,
  ) {}

  /** Restarts the chaos sequence (called when chaos is set, so a seed replays from its first draw). */
  resetChaos(): void {
    this.chaosCalls = 0;
  }

  /** Node calls this gate let through to the node since it was made (what a provider would bill). */
  get served(): number {
    return this.servedCalls;
  }

  /** Served calls by name ('wallet/getnowblock', …), names in alphabetical order: what each endpoint was asked. */
  get servedByCall(): Record<string, number> {
    return Object.fromEntries([...this.servedByName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Forgets the quota's current window (called when the quota is set). */
  resetQuota(): void {
    this.windowStart = Number.NaN;
    this.used = 0;
  }

  /** The decision for a call to `call` ('wallet/getnowblock', 'walletsolidity/getaccount', …). */
  decide(call: string): NodeCallDecision {
    const kind = this.scripted(call) ?? this.chaos(call);
    if (kind && kind.kind !== 'lost_reply') {
      return { action: 'fail', kind: kind.kind, holdMs: kind.hold_ms ?? DEFAULT_HOLD_MS, retryAfterS: kind.retry_after_s ?? 1 };
    }
    const quota = this.quota();
    if (quota) return quota;
    this.servedCalls += 1;
    this.servedByName.set(call, (this.servedByName.get(call) ?? 0) + 1);
    return { action: 'serve', lostReply: kind?.kind === 'lost_reply' };
  }

  private scripted(call: string): NodeFaultRule | null {
    const script = this.settings.script;
    const i = script.findIndex((r) => pathMatches(r.path, call));
    if (i < 0) return null;
    const rule = script[i]!;
    rule.times = (rule.times ?? 1) - 1;
    if (rule.times <= 0) script.splice(i, 1);
    return rule;
  }

  private chaos(call: string): Omit<NodeFaultRule, 'path'> | null {
    const c = this.settings.chaos;
    if (!c || (c.paths && !c.paths.some((p) => pathMatches(p, call)))) return null;
    const n = this.chaosCalls++;
    if (draw(c.seed, 'chaos-hit', n) >= c.rate) return null;
    return { kind: c.kinds[drawInt(c.seed, 'chaos-kind', n, c.kinds.length)]! };
  }

  private quota(): NodeCallDecision | null {
    const q = this.settings.rate_limit;
    if (!q) return null;
    const now = this.now();
    const start = Math.floor(now / q.window_ms) * q.window_ms;
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.used = 0;
    }
    if (this.used < q.budget) {
      this.used++;
      return null;
    }
    return { action: 'quota', status: q.status, budget: q.budget, retryAfterS: Math.max(1, Math.ceil((start + q.window_ms - now) / 1000)) };
  }
}
