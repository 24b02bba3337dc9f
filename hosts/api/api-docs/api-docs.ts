import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Swagger UI from the installed `swagger-ui-dist` package, read once at startup: the page needs no CDN. */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const swaggerFile = (name: string): string => readFileSync(join(SWAGGER_UI_DIR, name), 'utf8');

/** Where the page's files are served; the page links to them by these paths. */
export const API_DOCS_PATH = '/api/docs';

/** The files the page loads, by their path under API_DOCS_PATH. */
export const API_DOCS_ASSETS = {
  'swagger-ui.css': { contentType: 'text/css; charset=utf-8', body: swaggerFile('swagger-ui.css') },
  'swagger-ui-bundle.js': { contentType: 'text/javascript; charset=utf-8', body: swaggerFile('swagger-ui-bundle.js') },
  'api-docs.js': { contentType: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./api-docs.client.js', import.meta.url), 'utf8') },
} as const;

export const API_DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Custody Hub API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${API_DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${API_DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${API_DOCS_PATH}/api-docs.js"></script>
</body></html>
`;

/**
 * Headers of the reference page. Scripts and styles come from this server only (the renderer and its initializer
 * are files, nothing inline); `data:` images are the renderer's CSS icons; it fetches /api/openapi.json only. The
 * renderer needs nothing more: api-docs.browser.test.ts loads the page and finds no CSP refusal.
 */
export const API_DOCS_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
    "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** Headers of the page's files: cached for an hour (they change only with the installed package). */
export const API_DOCS_ASSET_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'public, max-age=3600',
  'x-content-type-options': 'nosniff',
};
