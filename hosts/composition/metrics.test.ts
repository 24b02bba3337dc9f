import { describe, expect, it } from 'vitest';
import { ChainError } from '../../core/domain/errors.js';
import type { ChainGateway } from '../../core/ports/chain-gateway.port.js';
import { MemoryAddressLock, ManualClock } from '../../adapters/memory/index.js';
import { rateLimitedErrors } from '../worker/rate-limited-log.js';
import { workerHealth } from '../worker/start-worker.js';
import { CustodyMetrics } from './metrics.js';

const line = (text: string, prefix: string): string | undefined => text.split('\n').find((l) => l.startsWith(prefix));

describe('CustodyMetrics decorators', () => {
  it('counts chain calls and errors by method and error code, passing results and errors through', async () => {
    const metrics = new CustodyMetrics('custody-test');
    const failing = new ChainError('CHAIN-NODE-UNAVAILABLE', 'node down');
    const chain = metrics.meterChain({
      head: () => Promise.resolve(42),
      broadcast: () => Promise.reject(failing),
    } as unknown as ChainGateway);
    expect(await (chain as unknown as { head(): Promise<number> }).head()).toBe(42);
    await expect(chain.broadcast({} as never)).rejects.toBe(failing);
    const text = await metrics.metrics();
    expect(line(text, 'custody_chain_calls_total{method="head"')).toMatch(/ 1$/);
    expect(line(text, 'custody_chain_errors_total{method="broadcast",kind="CHAIN-NODE-UNAVAILABLE"')).toMatch(/ 1$/);
    // No process metrics unless asked for (tests build many registries).
    expect(text).not.toContain('process_cpu');
  });

  it('a balance scanner stopped for another chain is counted once by reason, and answered for readiness and /healthz', async () => {
    const metrics = new CustodyMetrics('custody-test');
    expect(metrics.scannerChainMismatch()).toBeUndefined();
    const status = { chainMismatch: null as string | null, chainMismatches: 0 };
    metrics.watchScannerChain(() => status);
    expect(metrics.scannerChainMismatch()).toBeNull();
    expect(workerHealth(metrics, Date.now(), 60_000)()).toMatchObject({ ok: true });
    expect(await metrics.metrics()).not.toContain('custody_scanner_chain_mismatches_total{');
    Object.assign(status, { chainMismatch: 'genesis', chainMismatches: 1 });
    expect(metrics.scannerChainMismatch()).toBe('genesis');
    expect(workerHealth(metrics, Date.now(), 60_000)()).toEqual({ ok: false, lastTickAgoMs: expect.any(Number), chainMismatch: 'genesis' });
    // Scraped twice, still one stop.
    await metrics.metrics();
    expect(line(await metrics.metrics(), 'custody_scanner_chain_mismatches_total{reason="genesis"')).toMatch(/ 1$/);
  });

  it('counts refused lock acquisitions and idempotency outcomes', async () => {
    const metrics = new CustodyMetrics('custody-test');
    const lock = metrics.meterLock(new MemoryAddressLock({ clock: new ManualClock() }));
    const grant = await lock.acquire('T1', 1_000);
    expect(grant).not.toBeNull();
    expect(await lock.acquire('T1', 1_000)).toBeNull();
    expect(await lock.release(grant!)).toBe(true);
    const store = metrics.meterIdempotency({
      begin: () => Promise.resolve({ outcome: 'mismatch' as const }), complete: () => Promise.resolve(), abandon: () => Promise.resolve(),
    });
    await store.begin('s', 'k', 'h', 1_000);
    const text = await metrics.metrics();
    expect(line(text, 'custody_lock_conflicts_total')).toMatch(/ 1$/);
    expect(line(text, 'custody_idempotency_total{outcome="mismatch"')).toMatch(/ 1$/);
  });
});

describe('rateLimitedErrors', () => {
  it('writes a repeated failure once per window, without a stack, then once more with the count', () => {
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    const sink = { info() {}, warn() {}, error: (fields: object, message: string) => { lines.push({ fields: fields as Record<string, unknown>, message }); } };
    let now = 0;
    const log = rateLimitedErrors(sink, { windowMs: 60_000, now: () => now });
    for (let i = 0; i < 25; i++, now += 3_000) log.error({ err: new Error('connect ECONNREFUSED'), workflow: 'collection' }, 'workflow pass failed');
    log.error({ err: new Error('other') }, 'worker tick failed');
    expect(lines.map((l) => [l.message, l.fields['error'], l.fields['repeated']])).toEqual([
      ['workflow pass failed', 'connect ECONNREFUSED', undefined],
      ['workflow pass failed', 'connect ECONNREFUSED', 19],
      ['worker tick failed', 'other', undefined],
    ]);
    expect(JSON.stringify(lines)).not.toContain('    at ');
  });

  it('the tasks gauge shows every collection status at each scrape (0 when none) and no samples when the store fails', async () => {
    const metrics = new CustodyMetrics('custody-test');
    let counts: ReadonlyMap<number, number> | Error = new Map([[1, 2], [11, 5]]);
    metrics.watchTasksByStatus(async () => { if (counts instanceof Error) throw counts; return counts; });
    let text = await metrics.metrics();
    expect(line(text, 'custody_tasks{workflow="collection",status="PENDING"')).toMatch(/ 2$/);
    expect(line(text, 'custody_tasks{workflow="collection",status="DONE"')).toMatch(/ 5$/);
    expect(line(text, 'custody_tasks{workflow="collection",status="FAILED"')).toMatch(/ 0$/);
    counts = new Map([[11, 7]]);
    text = await metrics.metrics();
    expect(line(text, 'custody_tasks{workflow="collection",status="PENDING"')).toMatch(/ 0$/);
    expect(line(text, 'custody_tasks{workflow="collection",status="DONE"')).toMatch(/ 7$/);
    counts = new Error('store down');
    text = await metrics.metrics();
    expect(line(text, 'custody_tasks{')).toBeUndefined();
  });
});
