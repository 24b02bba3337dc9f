/**
 * HTTP front end on node:http: routes /wallet/* and /walletsolidity/* to the handlers, /sim/* and the simulated
 * rental APIs to the control routes, merges GET query and POST JSON body like java-tron's servlets, applies
 * `visible`, and honours the node_down / slow_ms faults and the node-call fault gate (scripted, chaos, quota).
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Chain } from './chain.js';
import { toBase58 } from './codec.js';
import type { NodeCallDecision, NodeFaultGate } from './node-faults.js';
import { dailyUsage403, errorBody200, frequencyLimit429, nginxError, type GatewayReply } from './trongrid.js';
import { HANDLERS, InputError, SOLIDITY_ENDPOINTS, type Handler } from './wallet-api.js';

type Json = Record<string, unknown>;

/** What a control route sees of its request besides the merged params: headers (API keys, signatures) and the URL. */
export interface ControlRequest {
  readonly headers: IncomingHttpHeaders;
  readonly url: URL;
}

/** A control route: gets the merged params, returns [status, body]. A key ending in `/*` matches one more segment. */
export type ControlRoute = (q: Json, method: string, request: ControlRequest) => [number, unknown] | Promise<[number, unknown]>;

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

/** JSON with bigints as their decimal text; the replacer (slow: a call per value) only for a body that holds one. */
function jsonText(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    return JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = jsonText(body);
  res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
  res.end(text);
}

/** What one HTTP server answers (java-tron serves /wallet on 8090 and /walletsolidity on 8091). */
export interface ServerRoles {
  wallet: boolean;
  solidity: boolean;
  /** /sim/* and the rental providers' routes. */
  control: boolean;
}

/** The per-endpoint switches a server honours before any node call (a node endpoint's own, or the chain's). */
export interface EndpointSwitches {
  readonly node_down: boolean;
  readonly slow_ms: number;
}

/**
 * Creates (does not listen) an HTTP server for the given roles; node calls pass through the fault gate and the
 * endpoint's switches (default: the chain's own faults, i.e. the primary node's).
 */
export function createDevnetServer(
  chain: Chain, control: Record<string, ControlRoute>, gate: NodeFaultGate, roles: ServerRoles, switches: EndpointSwitches = chain.faults,
): Server {
  return createServer((req, res) => {
    void handle(chain, control, gate, roles, switches, req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, { Error: `class java.lang.Exception : ${(e as Error).message}` });
    });
  });
}

async function handle(
  chain: Chain,
  control: Record<string, ControlRoute>,
  gate: NodeFaultGate,
  roles: ServerRoles,
  switches: EndpointSwitches,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://devnet');
  const path = url.pathname.replace(/\/+$/, '');
  const m = /^\/(wallet|walletsolidity)\/([A-Za-z0-9]+)$/.exec(path);
  if (m && (m[1] === 'wallet' ? roles.wallet : roles.solidity)) {
    await nodeCall(chain, gate, switches, m[1] === 'walletsolidity', m[2]!, url, req, res);
    return;
  }
  const route = roles.control && !m ? control[path] ?? control[path.replace(/\/[^/]+$/, '/*')] : undefined;
  if (route) {
    let q: Json;
    try {
      q = await readParams(req, url);
    } catch (e) {
      send(res, 400, { error: `invalid JSON: ${(e as Error).message}` });
      return;
    }
    try {
      const [status, body] = await route(q, req.method ?? 'GET', { headers: req.headers, url });
      send(res, status, body);
    } catch (e) {
      send(res, 400, { error: (e as Error).message });
    }
    return;
  }
  send(res, 404, { Error: `endpoint ${path || '/'} is not served by the devnet` });
}

/** A /wallet or /walletsolidity call: faults first, then the handler, then the (possibly lost) reply. */
async function nodeCall(
  chain: Chain, gate: NodeFaultGate, switches: EndpointSwitches, solid: boolean, name: string, url: URL, req: IncomingMessage, res: ServerResponse,
): Promise<void> {
  // A "down" node refuses service at the socket level, which is what clients see from a dead full node.
  if (switches.node_down) {
    req.socket.destroy();
    return;
  }
  if (switches.slow_ms > 0) await new Promise((r) => setTimeout(r, switches.slow_ms));
  const handler = HANDLERS[name] ?? HANDLERS[name.toLowerCase()];
  if (!handler || (solid && !SOLIDITY_ENDPOINTS.has(name) && !SOLIDITY_ENDPOINTS.has(name.toLowerCase()))) {
    send(res, 404, { Error: `endpoint ${url.pathname} is not served by the devnet` });
    return;
  }
  const decision = gate.decide(`${solid ? 'walletsolidity' : 'wallet'}/${name}`);
  if (decision.action !== 'serve') {
    refuse(decision, req, res);
    return;
  }
  const [status, body] = await runHandler(handler, chain, solid, url, req);
  if (decision.lostReply) req.socket.destroy();
  else send(res, status, body);
}

async function runHandler(handler: Handler, chain: Chain, solid: boolean, url: URL, req: IncomingMessage): Promise<[number, unknown]> {
  let q: Json;
  try {
    q = await readParams(req, url);
  } catch (e) {
    return [200, { Error: `class com.alibaba.fastjson.JSONException : ${(e as Error).message}` }];
  }
  const visible = q['visible'] === true || q['visible'] === 'true';
  let out: Json;
  try {
    out = handler(q, chain, solid, visible);
  } catch (e) {
    if (e instanceof InputError) return [200, { Error: `class java.lang.IllegalArgumentException : ${e.message}` }];
    throw e;
  }
  const body: unknown = '__array' in out ? out['__array'] : out;
  return [200, visible ? visibleReply(body) : body];
}

/** visible=true: base58 addresses, and the bytes `message` of an api.Return printed as text. */
function visibleReply(raw: unknown): unknown {
  const body = toVisible(raw);
  if (!body || typeof body !== 'object') return body;
  const b = body as Json;
  const text = (hex: unknown): string => Buffer.from(String(hex), 'hex').toString('utf8');
  if (typeof b['message'] === 'string' && 'code' in b) b['message'] = text(b['message']);
  const ret = b['result'];
  if (ret && typeof ret === 'object' && typeof (ret as Json)['message'] === 'string') (ret as Json)['message'] = text((ret as Json)['message']);
  return body;
}

/** Fails a call as the decision says; nothing reaches the node. */
function refuse(d: Exclude<NodeCallDecision, { action: 'serve' }>, req: IncomingMessage, res: ServerResponse): void {
  if (d.action === 'quota') {
    sendReply(res, d.status === 403 ? dailyUsage403(d.retryAfterS, d.budget) : frequencyLimit429(d.retryAfterS, d.budget));
    return;
  }
  switch (d.kind) {
    case 'reset':
      req.socket.destroy();
      return;
    case 'timeout':
      holdThenDestroy(req, d.holdMs);
      return;
    case 'http_403':
      sendReply(res, dailyUsage403(d.retryAfterS));
      return;
    case 'http_429':
      sendReply(res, frequencyLimit429(d.retryAfterS));
      return;
    case 'error_body':
      sendReply(res, errorBody200());
      return;
    default:
      sendReply(res, nginxError(Number(d.kind.slice(5)) as 500 | 502 | 503));
  }
}

/** The only real-time fault: the socket stays open without a reply, then is destroyed (or closed with the server). */
function holdThenDestroy(req: IncomingMessage, ms: number): void {
  const socket = req.socket;
  const timer = setTimeout(() => socket.destroy(), ms);
  socket.once('close', () => clearTimeout(timer));
}

function sendReply(res: ServerResponse, r: GatewayReply): void {
  res.writeHead(r.status, r.reason, { ...r.headers, 'access-control-allow-origin': '*' });
  res.end(r.body);
}
