import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RawResult } from '../route.js';
import { messagesOf, PAGE_LANGUAGES, type MessageKey, type PageLanguage } from './messages.js';

/** What the page script reads from its configuration block (besides the messages). */
export interface PayerPageSettings {
  /** Decimal places per asset symbol, for showing amounts in units (spec §1: 6 for TRX and USDT). */
  readonly decimals: Readonly<Record<string, number>>;
  /** Pause between two refreshes of session and balance: 2 GETs per 5 s is 24 of the 60 per minute (spec §8). */
  readonly pollMs: number;
  /** Without payer interaction for this long the page stops refreshing, so an idle tab lets the session expire. */
  readonly idleMs: number;
}

export const PAYER_PAGE_SETTINGS: PayerPageSettings = { decimals: { TRX: 6, USDT: 6 }, pollMs: 5_000, idleMs: 10 * 60_000 };

/**
 * The page script: the payment request's pure view (a module the tests import; joined here without its `export`
 * words) ahead of the page's own script, served as one file beside the page.
 */
const SCRIPT = readFileSync(new URL('./payment-request-view.js', import.meta.url), 'utf8').replace(/^export /gm, '')
  + readFileSync(new URL('./payer-page.client.js', import.meta.url), 'utf8');
const STYLE = readFileSync(new URL('./payer-page.css', import.meta.url), 'utf8');

/** Where the page script is served: beside the page (GET /cashier), on the same origin and under the same prefix. */
export const PAYER_PAGE_SCRIPT_PATH = '/cashier/payer-page.js';

/**
 * The script's version, a digest of its text. The page links the script with `?v=<version>`, so a page always loads
 * the script it was rendered with, and a browser may keep that URL for good: a new script is a new URL.
 */
export const PAYER_PAGE_SCRIPT_VERSION = createHash('sha256').update(SCRIPT).digest('base64url').slice(0, 16);

/**
 * The script file and its headers for a requested version. Only the current version may be cached for a year (and
 * never revalidated); any other `v`, or none, is the current text revalidated on each use, so an instance of an older
 * release behind the same name can never pin its script under a newer page's URL.
 */
export function payerPageScript(version: string | undefined): RawResult['raw'] {
  const cache = version === PAYER_PAGE_SCRIPT_VERSION ? 'public, max-age=31536000, immutable' : 'no-cache';
  return { contentType: 'text/javascript; charset=utf-8', body: SCRIPT, headers: { 'cache-control': cache } };
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON that cannot end its `<script>` block or start a comment in it. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

function render(lang: PageLanguage): string {
  const m = messagesOf(lang);
  const text = (key: MessageKey, tag = 'span', attrs = ''): string => `<${tag}${attrs} data-i18n="${key}">${escapeHtml(m[key])}</${tag}>`;
  const steps = (['waiting', 'received', 'sweeping', 'done'] as const)
    .map((step) => `<li data-step="${step}">${text(`step_${step}`)}</li>`).join('');
  const switcher = PAGE_LANGUAGES
    .map((l) => `<button type="button" lang="${l.tag}" data-lang="${l.tag}" aria-pressed="${l.tag === lang}">${escapeHtml(l.name)}</button>`).join('');
  const config = { lang, messages: Object.fromEntries(PAGE_LANGUAGES.map((l) => [l.tag, l.messages])), ...PAYER_PAGE_SETTINGS };
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex"><title data-i18n="title">${escapeHtml(m.title)}</title>
<style>${STYLE}</style></head>
<body>
<header class="bar"><nav id="languages" aria-label="${escapeHtml(m.language)}" data-i18n-label="language">${switcher}</nav></header>
<main>
${text('heading', 'h1', ' id="heading"')}
<p id="merchant" class="merchant" hidden></p>
<p id="reference" class="reference" hidden></p>
<p id="description" class="muted" hidden></p>
<p id="summary" class="summary" role="status" hidden></p>
<p id="deadline" class="timer" role="timer" hidden></p>
${text('loading', 'p', ' id="loading" class="muted"')}
<div id="problem" class="problem" role="alert" hidden></div>
<div id="checkout" class="columns" hidden>
<section id="pay-card" class="card" aria-labelledby="send-to">
${text('send_to', 'h2', ' id="send-to"')}
<img id="qr" class="qr" width="240" height="240" alt="" hidden>
<div id="amount-box" class="amount-box" hidden>${text('amount_label', 'span', ' class="label" id="amount-label"')}<code id="amount" class="amount-value"><span id="amount-number"></span> <span id="amount-symbol"></span></code></div>
<code id="address" class="address"></code>
<div class="copies">${text('copy_amount', 'button', ' type="button" id="copy-amount" class="copy" hidden')}${text('copy', 'button', ' type="button" id="copy" class="copy"')}</div>
<p id="copy-status" class="live" role="status"></p>
<p class="warning"><strong id="network" data-i18n="network">${escapeHtml(m.network)}</strong> ${text('network_detail')}</p>
<p id="minimums" class="muted"></p>
<p id="countdown" class="timer" role="timer"></p>
</section>
<section class="card" aria-labelledby="status-heading">
${text('status_heading', 'h2', ' id="status-heading"')}
<ol id="progress" class="progress" aria-label="${escapeHtml(m.progress)}" data-i18n-label="progress">${steps}</ol>
<p id="status" class="status" role="status"></p>
<div id="transfers" hidden>${text('transfers_heading', 'h3', ' id="transfers-heading"')}<ul id="transfer-list" class="transfers" aria-labelledby="transfers-heading"></ul></div>
<fieldset id="assets"><legend data-i18n="received_legend">${escapeHtml(m.received_legend)}</legend><div id="asset-list"></div></fieldset>
<button type="button" id="collect" class="primary" disabled>${escapeHtml(m.collect)}</button>
${text('collect_hint', 'p', ' id="collect-hint" class="hint"')}
<p id="notice" class="notice" role="alert"></p>
<div id="paused" class="paused" hidden>${text('paused', 'p')}${text('resume', 'button', ' type="button" id="resume"')}</div>
</section>
</div>
</main>
<script type="application/json" id="page-config">${scriptJson(config)}</script>
<script src="${PAYER_PAGE_SCRIPT_PATH}?v=${PAYER_PAGE_SCRIPT_VERSION}"></script>
</body></html>
`;
}

/** The page in each language, rendered once: the server picks one by Accept-Language, the script can switch. */
export const PAYER_PAGES: Readonly<Record<PageLanguage, string>> =
  Object.fromEntries(PAGE_LANGUAGES.map((l) => [l.tag, render(l.tag)])) as Record<PageLanguage, string>;

/** CSP source of an inline block (the style): the SHA-256 of its exact text, as a browser computes it. */
const hashSource = (content: string): string => `'sha256-${createHash('sha256').update(content).digest('base64')}'`;

/**
 * Headers of the payer page. A payment page must not be framed (clickjacking) and runs only its own script file from
 * this origin, never inline code (an injected script could read the `ct_` token from sessionStorage): its settings
 * and messages travel in a JSON block, which the browser parses as data and never runs. The one inline style is pinned
 * by hash. The QR code is an SVG the script fetches with the token and shows through a `blob:` URL. The script and
 * style are the same in every language.
 */
export const PAYER_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'", "script-src 'self'", `style-src ${hashSource(STYLE)}`, 'img-src blob:',
    "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  vary: 'Accept-Language',
};
