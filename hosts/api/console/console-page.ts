/**
 * The merchant console's files (issue #38): the HTML shell at /console (and any /console/… path that names no file,
 * for the screens' own addresses), the client's ES modules and CSS from hosts/api/console/app/, and the libraries from
 * node_modules under versioned /console/vendor/ addresses. No build step: the browser loads the modules as they are,
 * resolving the bare specifiers (`preact`, `htm`, …) through the page's import map.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const APP_DIR = fileURLToPath(new URL('./app/', import.meta.url));
/** The operator console's own modules (issue #38 item 2), served under /console/admin-app/; they import ../app/lib/. */
const ADMIN_DIR = fileURLToPath(new URL('./admin/', import.meta.url));

/**
 * A package's directory in node_modules and its version (from its package.json), found as node does: in the
 * node_modules of this directory or the nearest one above (package exports hide package.json from require.resolve).
 */
function packageOf(name: string): { dir: string; version: string } {
  for (let dir = fileURLToPath(new URL('.', import.meta.url)); ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) return { dir: dirname(manifest), version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version };
    if (dirname(dir) === dir) throw new Error(`the console needs the package ${name} (npm install)`);
  }
}

interface VendorFile { readonly path: string; readonly file: string; readonly contentType: string }

/** The library files the console may load: what the import map names, and uPlot's stylesheet. Nothing else is served. */
function vendorFiles(): { files: Map<string, VendorFile>; imports: Record<string, string>; uplotCss: string } {
  const preact = packageOf('preact');
  const htm = packageOf('htm');
  const uplot = packageOf('uplot');
  const js = 'text/javascript; charset=utf-8';
  const list: VendorFile[] = [
    { path: `/console/vendor/preact@${preact.version}/preact.mjs`, file: join(preact.dir, 'dist/preact.mjs'), contentType: js },
    { path: `/console/vendor/preact@${preact.version}/hooks.mjs`, file: join(preact.dir, 'hooks/dist/hooks.mjs'), contentType: js },
    { path: `/console/vendor/htm@${htm.version}/htm.mjs`, file: join(htm.dir, 'dist/htm.mjs'), contentType: js },
    { path: `/console/vendor/uplot@${uplot.version}/uPlot.esm.js`, file: join(uplot.dir, 'dist/uPlot.esm.js'), contentType: js },
    { path: `/console/vendor/uplot@${uplot.version}/uPlot.min.css`, file: join(uplot.dir, 'dist/uPlot.min.css'), contentType: 'text/css; charset=utf-8' },
  ];
  const [preactJs, hooksJs, htmJs, uplotJs, uplotCss] = list.map((f) => f.path) as [string, string, string, string, string];
  return {
    files: new Map(list.map((f) => [f.path, f])),
    imports: { 'preact': preactJs, 'preact/hooks': hooksJs, 'htm': htmJs, 'uplot': uplotJs },
    uplotCss,
  };
}

const VENDOR = vendorFiles();

/**
 * The import map, inline as an import map must be (Chromium loads no external one): allowed by the CSP through the
 * SHA-256 of its exact text, so `script-src` needs neither `'unsafe-inline'` nor a per-response nonce and the shell
 * stays a constant, cacheable text.
 */
const IMPORT_MAP = JSON.stringify({ imports: VENDOR.imports });
export const IMPORT_MAP_HASH = `sha256-${createHash('sha256').update(IMPORT_MAP).digest('base64')}`;

/** The console's Content-Security-Policy: scripts of this origin plus the import map's hash, nothing inline. */
export const CONSOLE_CSP = [
  "default-src 'none'", `script-src 'self' '${IMPORT_MAP_HASH}'`, "style-src 'self'", "img-src 'self' data:",
  "connect-src 'self'", "font-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

/** Headers of every console answer (issue #38 item 4). */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
};

/** The shell: the stylesheets, the import map, and the entry module. The client renders everything else. */
export const CONSOLE_SHELL = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex"><title>Custody Hub console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/app/console.css"><link rel="stylesheet" href="${VENDOR.uplotCss}">
<script type="importmap">${IMPORT_MAP}</script>
<link rel="modulepreload" href="${VENDOR.imports['preact']}"><link rel="modulepreload" href="${VENDOR.imports['htm']}">
<script type="module" src="/console/app/main.js"></script>
</head>
<body><div id="app"><main><h1>Custody Hub</h1><p>Loading…</p></main></div>
<noscript><p>The console needs JavaScript.</p></noscript></body></html>
`;

/**
 * The operator console's shell (/console/admin, issue #38 item 2): the same import map (so the same CSP) and the
 * merchant console's stylesheet, with its own entry module.
 */
export const ADMIN_CONSOLE_SHELL = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex"><title>Custody Hub operator console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/app/console.css">
<script type="importmap">${IMPORT_MAP}</script>
<link rel="modulepreload" href="${VENDOR.imports['preact']}"><link rel="modulepreload" href="${VENDOR.imports['htm']}">
<script type="module" src="/console/admin-app/main.js"></script>
</head>
<body><div id="app"><main><h1>Custody Hub operator console</h1><p>Loading…</p></main></div>
<noscript><p>The console needs JavaScript.</p></noscript></body></html>
`;

/** A console answer: status, body and headers (the console headers always included). */
export interface ConsoleFile {
  readonly status: number;
  readonly body: string | Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

const APP_FILE = /^\/console\/app\/((?:[a-z0-9_-]+\/)*[a-z0-9_.-]+\.(js|css))$/;
const ADMIN_FILE = /^\/console\/admin-app\/((?:[a-z0-9_-]+\/)*[a-z0-9_.-]+\.js)$/;
const TYPES: Readonly<Record<string, string>> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

function fileAnswer(body: Buffer, contentType: string, cache: string, ifNoneMatch: string | null): ConsoleFile {
  const etag = etagOf(body);
  const headers = { ...CONSOLE_HEADERS, 'content-type': contentType, 'cache-control': cache, etag };
  return ifNoneMatch === etag ? { status: 304, body: '', headers } : { status: 200, body, headers };
}

/**
 * The answer for a GET of a /console path, or null when the path names a console file that does not exist (the caller
 * answers 404 in the envelope). App modules are revalidated on each use (`no-cache` with an ETag: a new release is
 * seen at once, an unchanged file costs a 304); vendor files live under their version and are immutable.
 */
export async function consoleFile(pathname: string, ifNoneMatch: string | null): Promise<ConsoleFile | null> {
  const vendor = VENDOR.files.get(pathname);
  if (vendor !== undefined) return fileAnswer(await readFile(vendor.file), vendor.contentType, 'public, max-age=31536000, immutable', ifNoneMatch);
  const app = APP_FILE.exec(pathname);
  if (app !== null) {
    const file = resolve(APP_DIR, app[1]!);
    if (!file.startsWith(APP_DIR.endsWith(sep) ? APP_DIR : APP_DIR + sep) || app[1]!.includes('..')) return null;
    const body = await readFile(file).catch(() => null);
    return body === null ? null : fileAnswer(body, TYPES[app[2]!]!, 'no-cache', ifNoneMatch);
  }
  const admin = ADMIN_FILE.exec(pathname);
  if (admin !== null) {
    const file = resolve(ADMIN_DIR, admin[1]!);
    if (!file.startsWith(ADMIN_DIR.endsWith(sep) ? ADMIN_DIR : ADMIN_DIR + sep) || admin[1]!.includes('..')) return null;
    const body = await readFile(file).catch(() => null);
    return body === null ? null : fileAnswer(body, TYPES['js']!, 'no-cache', ifNoneMatch);
  }
  if (pathname.startsWith('/console/app/') || pathname.startsWith('/console/vendor/') || pathname.startsWith('/console/admin-app/')) return null;
  if (pathname === '/console/admin' || pathname.startsWith('/console/admin/')) {
    return { status: 200, body: ADMIN_CONSOLE_SHELL, headers: { ...CONSOLE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } };
  }
  return { status: 200, body: CONSOLE_SHELL, headers: { ...CONSOLE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } };
}
