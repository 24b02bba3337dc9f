/**
 * The node client's HTTP requests on node:http(s) with keep-alive, answering as tronweb's HttpProvider (axios) does
 * for the node API's JSON POSTs: a 2xx body parsed as JSON when it is JSON and as text otherwise, an HTTP error status
 * or a failure below HTTP thrown as an {@link HttpFailure} that carries what axios' error would (code, status,
 * headers, body), so tron-errors.ts classifies both alike. axios' generality (interceptors, config merging, header
 * classes, the redirect wrapper) cost about a fifth of a busy worker's CPU; this is the part the node API needs.
 * Not supported, and so left to tronweb's provider: proxies from HTTP(S)_PROXY (see {@link proxyConfigured}).
 * Redirects are not followed: a node's API does not redirect, and a 3xx answer is an HTTP error saying so.
 */
import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import { HttpFailure } from './tron-errors.js';

const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) } as const;
const decoders: Record<string, (body: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip), 'x-gzip': promisify(gunzip), deflate: promisify(inflate), br: promisify(brotliDecompress),
};

/**
 * Whether requests should go through a proxy configured in the environment (HTTP_PROXY, HTTPS_PROXY, lower case
 * too), which axios honours and node:http does not: then the node client keeps tronweb's provider.
 */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].some((name) => (env[name] ?? '') !== '');
}

/** One node endpoint (a base URL), as tronweb's HttpProvider(host, timeoutMs, '', '', headers). */
export class NodeHttpEndpoint {
  private readonly base: URL;
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;

  constructor(host: string, private readonly timeoutMs: number, private readonly headers: Readonly<Record<string, string>> = {}) {
    this.base = new URL(host.replace(/\/+$/, ''));
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') throw new Error(`unsupported node URL protocol ${this.base.protocol}`);
    this.transport = this.base.protocol === 'https:' ? https : http;
    this.agent = agents[this.base.protocol];
  }

  /**
   * POSTs `body` as JSON to `path` under the base URL (no body when `body` is empty, as HttpProvider sends none) and
   * returns the reply as axios would: parsed JSON, or the text when it is not JSON ('' when empty).
   */
  request<T = unknown>(path: string, body: Readonly<Record<string, unknown>> = {}): Promise<T> {
    const payload = Object.keys(body).length > 0 ? JSON.stringify(body) : null;
    const base = this.base.pathname.replace(/\/+$/, '');
    const headers: Record<string, string | number> = {
      accept: 'application/json, text/plain, */*', 'accept-encoding': 'gzip, deflate, br', ...this.headers,
      ...(payload === null ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
    };
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const fail = (error: HttpFailure): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      };
      const req = this.transport.request({
        protocol: this.base.protocol, hostname: this.base.hostname, port: this.base.port, method: 'POST', agent: this.agent,
        path: `${base}/${path.replace(/^\/+/, '')}${this.base.search}`, headers,
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (e: NodeJS.ErrnoException) => fail(new HttpFailure(e.message, e.code ?? 'ECONNRESET')));
        res.on('end', () => {
          void decoded(Buffer.concat(chunks), res.headers['content-encoding']).then((raw) => {
            if (settled) return;
            const data = parsed(raw.toString('utf8'));
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) {
              settled = true;
              clearTimeout(timer);
              resolve(data as T);
              return;
            }
            fail(new HttpFailure(`Request failed with status code ${status}`, status >= 500 ? 'ERR_BAD_RESPONSE' : 'ERR_BAD_REQUEST',
              { status, headers: res.headers as Record<string, unknown>, data }));
          }, (e: Error) => fail(new HttpFailure(`undecodable reply: ${e.message}`, 'ERR_BAD_RESPONSE')));
        });
      });
      // axios' timeout: the whole request, from the start (code ECONNABORTED, as axios names it).
      const timer = setTimeout(() => {
        fail(new HttpFailure(`timeout of ${this.timeoutMs}ms exceeded`, 'ECONNABORTED'));
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => fail(new HttpFailure(e.message, e.code ?? 'ERR_NETWORK')));
      req.end(payload ?? undefined);
    });
  }
}

async function decoded(body: Buffer, encoding: string | undefined): Promise<Buffer> {
  const decode = encoding === undefined ? undefined : decoders[encoding.trim().toLowerCase()];
  return decode === undefined || body.length === 0 ? body : decode(body);
}

/** axios' silent JSON parsing: JSON when the text parses, else the text itself. */
function parsed(text: string): unknown {
  if (text === '') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** What the node clients send requests through: a JSON POST to a path under one node endpoint. */
export interface NodeRequester {
  request<T = unknown>(path: string, body: Readonly<Record<string, unknown>>): Promise<T>;
}

/**
 * The requester of one node endpoint: node:http ({@link NodeHttpEndpoint}), or tronweb's `provider` (axios) when a
 * proxy is configured in the environment, which only axios honours.
 */
export function nodeRequester(
  provider: { request<T>(path: string, body: Record<string, unknown>, method: 'post'): Promise<T> },
  host: string, timeoutMs: number, headers: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv = process.env,
): NodeRequester {
  if (proxyConfigured(env)) return { request: <T>(path: string, body: Readonly<Record<string, unknown>>) => provider.request<T>(path, { ...body }, 'post') };
  return new NodeHttpEndpoint(host, timeoutMs, headers);
}
