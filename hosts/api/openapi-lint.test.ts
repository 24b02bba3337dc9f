import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules/.bin/redocly');

interface LintReport {
  readonly totals: { readonly errors: number; readonly warnings: number };
  readonly problems: readonly { readonly ruleId: string; readonly message: string; readonly location?: readonly { readonly pointer?: string }[] }[];
}

/** `redocly lint` of a document with the committed redocly.yaml: its JSON report (it exits non-zero on errors). */
async function lint(dir: string, doc: unknown): Promise<LintReport> {
  const file = join(dir, `openapi-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(doc));
  // Telemetry and the update check would reach the network: the test runs offline.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const args = ['lint', '--config', join(ROOT, 'redocly.yaml'), '--format', 'json', file];
  const stdout = await promisify(execFile)(REDOCLY, args, { env, maxBuffer: 64 << 20 })
    .then((r) => r.stdout, (error: { stdout?: string }) => error.stdout ?? '');
  return JSON.parse(stdout) as LintReport;
}

const summary = (report: LintReport): string[] =>
  report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);

/** The served OpenAPI document lints clean with a real linter (issue #15: "lints clean with @redocly/cli"). */
describe('OpenAPI document lint (redocly, recommended rules)', () => {
  let h: ApiHarness;
  let doc: Record<string, any>;
  let dir: string;
  beforeAll(async () => {
    [h, dir] = await Promise.all([startHarness(), mkdtemp(join(tmpdir(), 'openapi-lint-'))]);
    doc = (await h.call('GET', '/api/openapi.json')).json as Record<string, any>;
  });
  afterAll(async () => {
    await h?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('has no error and no warning', async () => {
    const report = await lint(dir, doc);
    expect(summary(report)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('reports a broken document: an example that contradicts its schema, a duplicate operationId, a dangling reference', async () => {
    const broken = structuredClone(doc);
    broken.paths['/api/wallets'].post.requestBody.content['application/json'].example = { network_code: 'TRON', address_type: 3 };
    broken.paths['/api/wallets'].get.operationId = 'createWallet';
    broken.paths['/api/collections'].post.responses['201'].content['application/json'].schema.properties.data = { $ref: '#/components/schemas/Nope' };
    const rules = new Set((await lint(dir, broken)).problems.map((p) => p.ruleId));
    expect([...rules].sort()).toEqual(expect.arrayContaining(['no-invalid-media-type-examples', 'no-unresolved-refs', 'operation-operationId-unique']));
  });
});
