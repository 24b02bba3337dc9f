/**
 * HTTP front end on node:http: routes /wallet/* and /walletsolidity/* to the handlers, /sim/* and /rental/* to
 * the control routes, merges GET query and POST JSON body like java-tron's servlets, applies `visible`, and
 * honours the node_down / slow_ms faults.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Chain } from './chain.js';
import { toBase58 } from './codec.js';
import { HANDLERS, InputError, SOLIDITY_ENDPOINTS } from './wallet-api.js';

type Json = Record<string, unknown>;

/** A control route: gets the merged params, returns [status, body]. */
export type ControlRoute = (q: Json, method: string) => [number, unknown] | Promise<[number, unknown]>;

/** Keys whose 41-hex values java-tron prints as base58 when visible=true. */
const ADDRESS_KEYS = new Set([
  'address', 'owner_address', 'to_address', 'receiver_address', 'contract_address', 'origin_address', 'from', 'to',
  'witness_address', 'vote_address', 'account', 'fromAccounts', 'toAccounts', 'caller_address', 'transferTo_address',
]);

/** Converts a reply to visible=true form (base58 addresses, log addresses with the 41 prefix). */
export function toVisible(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((x) => toVisible(x, key));
  if (value && typeof value === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(value as Json)) {
      if (k === 'log' && Array.isArray(v)) {
        out[k] = v.map((l: Json) => ({ ...l, address: toBase58('41' + String(l['address'])) }));
      } else out[k] = toVisible(v, k);
    }
    return out;
  }
  if (typeof value === 'string' && ADDRESS_KEYS.has(key) && /^41[0-9a-f]{40}$/i.test(value)) return toBase58(value);
  return value;
}

async function readParams(req: IncomingMessage, url: URL): Promise<Json> {
  const q: Json = Object.fromEntries(url.searchParams.entries());
  if (req.method === 'POST' || req.method === 'PUT') {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8').trim();
    if (text) {
      const body = JSON.parse(text) as unknown;
      if (body && typeof body === 'object' && !Array.isArray(body)) Object.assign(q, body);
    }
  }
  return q;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
  res.end(text);
}

/** Creates (does not listen) the HTTP server. */
export function createDevnetServer(chain: Chain, control: Record<string, ControlRoute>): Server {
  return createServer((req, res) => {
    void handle(chain, control, req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, { Error: `class java.lang.Exception : ${(e as Error).message}` });
    });
  });
}

async function handle(chain: Chain, control: Record<string, ControlRoute>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://devnet');
  const path = url.pathname.replace(/\/+$/, '');
  const m = /^\/(wallet|walletsolidity)\/([A-Za-z0-9]+)$/.exec(path);
  if (m) {
    // A "down" node refuses service at the socket level, which is what clients see from a dead full node.
    if (chain.faults.node_down) {
      req.socket.destroy();
      return;
    }
    if (chain.faults.slow_ms > 0) await new Promise((r) => setTimeout(r, chain.faults.slow_ms));
    const solid = m[1] === 'walletsolidity';
    const name = m[2]!;
    const handler = HANDLERS[name] ?? HANDLERS[name.toLowerCase()];
    if (!handler || (solid && !SOLIDITY_ENDPOINTS.has(name) && !SOLIDITY_ENDPOINTS.has(name.toLowerCase()))) {
      send(res, 404, { Error: `endpoint ${path} is not served by the devnet` });
      return;
    }
    let q: Json;
    try {
      q = await readParams(req, url);
    } catch (e) {
      send(res, 200, { Error: `class com.alibaba.fastjson.JSONException : ${(e as Error).message}` });
      return;
    }
    const visible = q['visible'] === true || q['visible'] === 'true';
    let out: Json;
    try {
      out = handler(q, chain, solid, visible);
    } catch (e) {
      if (e instanceof InputError) {
        send(res, 200, { Error: `class java.lang.IllegalArgumentException : ${e.message}` });
        return;
      }
      throw e;
    }
    let body: unknown = '__array' in out ? out['__array'] : out;
    if (visible) {
      body = toVisible(body);
      if (body && typeof body === 'object' && typeof (body as Json)['message'] === 'string' && 'code' in (body as Json)) {
        (body as Json)['message'] = Buffer.from(String((body as Json)['message']), 'hex').toString('utf8');
      }
    }
    send(res, 200, body);
    return;
  }
  const route = control[path];
  if (route) {
    let q: Json;
    try {
      q = await readParams(req, url);
    } catch (e) {
      send(res, 400, { error: `invalid JSON: ${(e as Error).message}` });
      return;
    }
    try {
      const [status, body] = await route(q, req.method ?? 'GET');
      send(res, status, body);
    } catch (e) {
      send(res, 400, { error: (e as Error).message });
    }
    return;
  }
  send(res, 404, { Error: `endpoint ${path || '/'} is not served by the devnet` });
}
