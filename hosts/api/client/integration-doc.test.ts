/**
 * The signature snippets of docs/integration.md, run as a reader would run them: each fenced block marked
 * `<!-- snippet: <file> -->` is written to a temporary folder and run by its own runtime (node, python3, go) against
 * every known-answer vector (webhook-test-vectors.ts) and against deliveries signed by the service's own sender
 * (webhookRequest). Both signatures must verify; a changed body, a wrong secret, a stale or future timestamp and a
 * replayed signature must be refused. The receivers of the walkthrough are started and sent real requests. Python or
 * Go missing: a loud SKIPPED line and a visibly skipped test, never a silent pass (`.ci/run` installs Go).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { webhookRequest } from '../../../core/application/webhooks.service.js';
import type { JsonValue } from '../../../core/domain/model/webhook.js';
import { ROTATION_VECTOR, WEBHOOK_VECTORS } from '../../../packages/client/test/webhook-test-vectors.js';
import { shellVariables, walkthroughBlocks } from '../../dev/walkthrough-blocks.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const markdown = readFileSync(join(root, 'docs/integration.md'), 'utf8');

/** Every `<!-- snippet: name -->` block of the page, by file name. */
function extractSnippets(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of text.matchAll(/<!-- snippet: ([\w./-]+) -->\n```\w+\n([\s\S]*?)\n```/g)) {
    const [, name, code] = match as unknown as [string, string, string];
    if (found.has(name)) throw new Error(`snippet ${name} appears twice`);
    found.set(name, `${code}\n`);
  }
  return found;
}

const snippets = extractSnippets(markdown);
const work = mkdtempSync(join(tmpdir(), 'integration-doc-'));
for (const [name, code] of snippets) {
  mkdirSync(dirname(join(work, name)), { recursive: true });
  writeFileSync(join(work, name), code);
}
afterAll(() => rmSync(work, { recursive: true, force: true }));

function available(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}
const hasPython = available('python3', ['--version']);
const hasGo = available('go', ['version']);
if (!hasPython) console.warn('SKIPPED: python3 is not installed: the Python snippets of docs/integration.md are not checked');
if (!hasGo) console.warn('SKIPPED: go is not installed (apt-get install golang-go; .ci/run does): the Go snippets of docs/integration.md are not checked');

/** One delivery as a receiver sees it, and what every snippet must answer. */
interface Case {
  readonly name: string;
  readonly body: string;
  /** Lower-case names, as Node's req.headers has them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly secrets: readonly string[];
  /** Time of receipt, Unix seconds. */
  readonly now: number;
  readonly specHeader: string;
  readonly specSecret: string;
  readonly expected: { readonly standard: boolean; readonly spec: boolean; readonly canonical?: string };
}

interface Outcome {
  readonly standard: boolean;
  readonly spec: boolean;
  readonly canonical: string | null;
}

function lowerCaseHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function buildCases(): Case[] {
  const cases: Case[] = [];
  for (const v of WEBHOOK_VECTORS) {
    const headers = { 'webhook-id': v.id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': v.standardSignature };
    const base = { body: v.body, headers, secrets: [v.secret], now: v.timestamp, specHeader: v.specSignature, specSecret: v.secret };
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(v.body) as Record<string, unknown>).reverse()));
    cases.push(
      { ...base, name: `${v.name}: as signed`, expected: { standard: true, spec: true, canonical: v.canonical } },
      { ...base, name: `${v.name}: tampered body`, body: `${v.body.slice(0, -1)},"tampered":true}`, expected: { standard: false, spec: false } },
      { ...base, name: `${v.name}: wrong secret`, secrets: ['not-the-secret'], specSecret: 'not-the-secret', expected: { standard: false, spec: false } },
      { ...base, name: `${v.name}: 301 s late`, now: v.timestamp + 301, expected: { standard: false, spec: true } },
      { ...base, name: `${v.name}: 301 s early`, now: v.timestamp - 301, expected: { standard: false, spec: true } },
      { ...base, name: `${v.name}: 300 s late, at the edge`, now: v.timestamp + 300, expected: { standard: true, spec: true } },
      { ...base, name: `${v.name}: the receiver holds two secrets`, secrets: ['old-secret', v.secret], expected: { standard: true, spec: true } },
      {
        ...base, name: `${v.name}: replayed under a fresh timestamp`, now: v.timestamp + 60,
        headers: { ...headers, 'webhook-timestamp': String(v.timestamp + 60) }, expected: { standard: false, spec: true },
      },
      {
        ...base, name: `${v.name}: no webhook-signature`, headers: { 'webhook-id': v.id, 'webhook-timestamp': String(v.timestamp) },
        expected: { standard: false, spec: true },
      },
      // The spec signature does not depend on the order the keys travel in; the Standard one covers the exact bytes.
      { ...base, name: `${v.name}: top-level keys reordered`, body: reordered, expected: { standard: false, spec: true, canonical: v.canonical } },
    );
    // What the service's sender puts on the wire, during a rotation (new secret first, then the replaced one).
    const sentAt = v.timestamp * 1000 + 400;
    const sent = webhookRequest('https://127.0.0.1/hook', JSON.parse(v.body) as Record<string, JsonValue>, [v.secret, ROTATION_VECTOR.previousSecret], sentAt);
    const wire = { body: sent.body, headers: lowerCaseHeaders(sent.headers), now: v.timestamp + 2 };
    const specHeader = wire.headers['x-webhook-signature'] ?? '';
    cases.push(
      { ...wire, name: `${v.name}: sent by the service, new secret`, secrets: [v.secret], specHeader, specSecret: v.secret, expected: { standard: true, spec: true, canonical: v.canonical } },
      { ...wire, name: `${v.name}: sent by the service, replaced secret`, secrets: [ROTATION_VECTOR.previousSecret], specHeader, specSecret: ROTATION_VECTOR.previousSecret, expected: { standard: true, spec: false } },
    );
  }
  const [first] = WEBHOOK_VECTORS;
  cases.push({
    name: 'rotation vector: the second v1 entry verifies with the previous secret', body: first!.body, now: first!.timestamp,
    headers: { 'webhook-id': first!.id, 'webhook-timestamp': String(first!.timestamp), 'webhook-signature': `${first!.standardSignature} ${ROTATION_VECTOR.standardSignature}` },
    secrets: [ROTATION_VECTOR.previousSecret], specHeader: first!.specSignature, specSecret: first!.secret, expected: { standard: true, spec: true },
  });
  return cases;
}

const cases = buildCases();
const input = JSON.stringify(cases.map(({ expected: _expected, name: _name, ...rest }) => rest));

function run(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string }): string {
  const result = spawnSync(command, args, {
    cwd: options.cwd, input: options.stdin ?? '', encoding: 'utf8', env: { ...process.env, ...options.env }, timeout: 240_000,
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}${result.error?.message ?? ''}`);
  return result.stdout;
}

/** Each case's answer equals its expectation; the failing cases are named. */
function expectOutcomes(stdout: string): void {
  const outcomes = JSON.parse(stdout) as Outcome[];
  expect(outcomes).toHaveLength(cases.length);
  const wrong = cases.flatMap((c, i) => {
    const got = outcomes[i]!;
    const bad = got.standard !== c.expected.standard || got.spec !== c.expected.spec
      || (c.expected.canonical !== undefined && got.canonical !== c.expected.canonical);
    return bad ? [`${c.name}: expected ${JSON.stringify(c.expected)}, got ${JSON.stringify(got)}`] : [];
  });
  expect(wrong).toEqual([]);
}

const NODE_HARNESS = `
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { canonicalJson, verifySpecSignature, verifyStandardWebhook } from './verify-webhooks.mjs';
const canonical = (body) => { try { return canonicalJson(body); } catch { return null; } };
const cases = JSON.parse(readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(cases.map((c) => ({
  standard: verifyStandardWebhook(Buffer.from(c.body, 'utf8'), c.headers, c.secrets, c.now),
  spec: verifySpecSignature(Buffer.from(c.body, 'utf8'), c.specHeader, c.specSecret),
  canonical: canonical(Buffer.from(c.body, 'utf8')),
}))));
`;

const PACKAGE_HARNESS = `
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { canonicalJson } from '@custody-hub/client/webhooks';
import { verifyDelivery, verifySpecHeader } from './custody-hub-webhooks.mjs';
const cases = JSON.parse(readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(cases.map((c) => ({
  standard: verifyDelivery(Buffer.from(c.body, 'utf8'), c.headers, c.secrets, c.now * 1000).ok,
  spec: verifySpecHeader(Buffer.from(c.body, 'utf8'), { 'x-webhook-signature': c.specHeader }, c.specSecret),
  canonical: canonicalJson(JSON.parse(c.body)),
}))));
`;

const PYTHON_HARNESS = `
import json, sys
from verify_webhooks import canonical_json, verify_spec_signature, verify_standard_webhook

def canonical(body):
    try:
        return canonical_json(body)
    except ValueError:
        return None

cases = json.loads(sys.stdin.buffer.read())
print(json.dumps([{
    "standard": verify_standard_webhook(c["body"].encode(), c["headers"], c["secrets"], now=c["now"]),
    "spec": verify_spec_signature(c["body"].encode(), c["specHeader"], c["specSecret"]),
    "canonical": canonical(c["body"].encode()),
} for c in cases]))
`;

const GO_HARNESS = `package main

import (
	"encoding/json"
	"net/http"
	"os"
	"time"

	"harness/webhooks"
)

type testCase struct {
	Body       string            \`json:"body"\`
	Headers    map[string]string \`json:"headers"\`
	Secrets    []string          \`json:"secrets"\`
	Now        int64             \`json:"now"\`
	SpecHeader string            \`json:"specHeader"\`
	SpecSecret string            \`json:"specSecret"\`
}

type outcome struct {
	Standard  bool    \`json:"standard"\`
	Spec      bool    \`json:"spec"\`
	Canonical *string \`json:"canonical"\`
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		panic(err)
	}
	out := make([]outcome, len(cases))
	for i, c := range cases {
		h := http.Header{}
		for k, v := range c.Headers {
			h.Set(k, v)
		}
		body := []byte(c.Body)
		out[i] = outcome{Standard: webhooks.VerifyStandard(body, h, c.Secrets, time.Unix(c.Now, 0)), Spec: webhooks.VerifySpec(body, c.SpecHeader, c.SpecSecret)}
		if s, err := webhooks.CanonicalJSON(body); err == nil {
			out[i].Canonical = &s
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
`;

/** Starts a receiver snippet and resolves with its base URL once it prints `listening on http://…/webhooks`. */
async function startReceiver(command: string, args: readonly string[], secret: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(command, args, { cwd: work, env: { ...process.env, RECEIVER_PORT: '0', WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start: ${output}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/webhooks)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${output}`)));
  });
  return { url, child };
}

/** Sends the service's own signed request (or a spoiled copy) to a receiver; returns the HTTP status. */
async function deliver(url: string, secret: string, spoil: 'none' | 'body' | 'stale' | 'secret'): Promise<number> {
  const payload = JSON.parse(WEBHOOK_VECTORS[0]!.body) as Record<string, JsonValue>;
  const sentAt = spoil === 'stale' ? Date.now() - 600_000 : Date.now();
  const request = webhookRequest(url, payload, [spoil === 'secret' ? 'another-secret' : secret], sentAt);
  const body = spoil === 'body' ? request.body.replace('1500000', '1500001') : request.body;
  const response = await fetch(url, { method: 'POST', headers: request.headers, body });
  await response.arrayBuffer();
  return response.status;
}

async function checkReceiver(command: string, args: readonly string[]): Promise<void> {
  const secret = 'whsec-receiver-test-✓';
  const { url, child } = await startReceiver(command, args, secret);
  try {
    expect(await deliver(url, secret, 'none')).toBe(204);
    expect(await deliver(url, secret, 'body')).toBe(400);
    expect(await deliver(url, secret, 'stale')).toBe(400);
    expect(await deliver(url, secret, 'secret')).toBe(400);
  } finally {
    child.kill();
  }
}

describe('docs/integration.md', () => {
  it('has every snippet this test runs, and vectors whose bodies are exactly what the service sends', () => {
    expect([...snippets.keys()].sort()).toEqual([
      'custody-hub-webhooks.mjs', 'integrate.mts', 'receiver.mjs', 'receiver.py', 'verify-webhooks.mjs', 'verify_webhooks.py', 'webhooks/handler.go',
      'webhooks/verify.go',
    ]);
    for (const v of WEBHOOK_VECTORS) expect(JSON.stringify(JSON.parse(v.body)), v.name).toBe(v.body);
    expect(WEBHOOK_VECTORS.some((v) => /[{[]/.test(v.canonical.slice(1)))).toBe(true); // a nested object or array is covered
  });

  it('Node (node:crypto only) verifies every vector and refuses the spoiled ones', () => {
    writeFileSync(join(work, 'harness-node.mjs'), NODE_HARNESS);
    expectOutcomes(run(process.execPath, ['harness-node.mjs'], { cwd: work, stdin: input }));
  });

  it('Node with @custody-hub/client/webhooks verifies every vector and refuses the spoiled ones', () => {
    // The package entry is the module the package exports as @custody-hub/client/webhooks (its webhooks.test.ts
    // checks the mapping); tsx runs it from source.
    const entry = pathToFileURL(join(root, 'packages/client/src/webhooks.ts')).href;
    const dir = join(work, 'package');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'custody-hub-webhooks.mjs'), snippets.get('custody-hub-webhooks.mjs')!.replaceAll("'@custody-hub/client/webhooks'", `'${entry}'`));
    writeFileSync(join(dir, 'harness.mjs'), PACKAGE_HARNESS.replaceAll("'@custody-hub/client/webhooks'", `'${entry}'`));
    expectOutcomes(run(process.execPath, ['--import', 'tsx', join(dir, 'harness.mjs')], { cwd: root, stdin: input }));
  });

  it('the Node receiver of the walkthrough accepts a delivery of the service and refuses spoiled ones', async () => {
    await checkReceiver(process.execPath, ['receiver.mjs']);
  });

  it('the typed-client walkthrough type-checks against @custody-hub/client and @custody-hub/client/webhooks', () => {
    // The package entries by their source modules (the exports point at the build); the repository's compiler options.
    const dir = join(work, 'client');
    mkdirSync(dir, { recursive: true });
    const source = snippets.get('integrate.mts')!
      .replaceAll("'@custody-hub/client'", `'${join(root, 'packages/client/src/client.js')}'`)
      .replaceAll("'@custody-hub/client/webhooks'", `'${join(root, 'packages/client/src/webhooks.js')}'`);
    writeFileSync(join(dir, 'integrate.mts'), source);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      compilerOptions: { noEmit: true, rootDir: '/', typeRoots: [join(root, 'node_modules/@types')] },
      include: ['integrate.mts'],
    }));
    run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { cwd: dir });
  }, 120_000);

  it.skipIf(!hasPython)('Python (standard library) verifies every vector and refuses the spoiled ones', () => {
    writeFileSync(join(work, 'harness.py'), PYTHON_HARNESS);
    expectOutcomes(run('python3', ['harness.py'], { cwd: work, stdin: input, env: { PYTHONDONTWRITEBYTECODE: '1' } }));
  });

  it.skipIf(!hasPython)('the Python receiver accepts a delivery of the service and refuses spoiled ones', async () => {
    await checkReceiver('python3', ['-u', 'receiver.py']);
  });

  it.skipIf(!hasGo)('Go (standard library) compiles with its handler, verifies every vector and refuses the spoiled ones', () => {
    writeFileSync(join(work, 'go.mod'), 'module harness\n\ngo 1.19\n');
    writeFileSync(join(work, 'main.go'), GO_HARNESS);
    // One build per run; the build cache outlives the run, so later runs compile in well under a second.
    const cache = join(tmpdir(), 'custody-hub-go-cache');
    const env = { GOTOOLCHAIN: 'local', GOFLAGS: '', GOCACHE: join(cache, 'build'), GOPATH: join(cache, 'path'), GO111MODULE: 'on', CGO_ENABLED: '0' };
    run('go', ['vet', './...'], { cwd: work, env });
    run('go', ['build', '-o', 'harness-go', '.'], { cwd: work, env });
    expectOutcomes(run(join(work, 'harness-go'), [], { cwd: work, stdin: input }));
  }, 240_000);
});

// The curl walkthrough runs in page order, one shell (hosts/dev/integration-walkthrough.integration.test.ts runs it
// against npm start); this cheap check catches a block that reads a variable no block before it sets (issue #34).
describe('docs/integration.md: the curl walkthrough, block by block in order', () => {
  it('reads only variables set by itself or an earlier block', () => {
    const blocks = walkthroughBlocks(markdown);
    expect(blocks.length).toBeGreaterThan(8);
    const set = new Set<string>();
    const unset: string[] = [];
    blocks.forEach((block, i) => {
      const { reads, sets } = shellVariables(block);
      for (const name of sets) set.add(name);
      for (const name of reads) if (!set.has(name)) unset.push(`block ${i + 1}: $${name}`);
    });
    expect(unset).toEqual([]);
  });
});
