import { createHash } from 'node:crypto';

/**
 * The payer page served at the cashier URL (`/cashier?ct=<token>`). Static: the token is read from the query by the
 * script and sent as a bearer header, never echoed into the markup. The page drops `ct` from the address bar so it does
 * not linger in history or get copied along with a screenshot of the URL.
 */
export const CASHIER_PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Payment</title>
<style>body{font:16px system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem}code{word-break:break-all}
table{border-collapse:collapse}td{padding:.2rem .6rem}.err{color:#b00}</style></head>
<body><h1>Payment</h1><div id="out">Loading…</div>
<p><select id="asset"></select> <button id="collect" disabled>I have paid — collect</button></p><p id="msg"></p>
<script>
const ct = new URLSearchParams(location.search).get('ct') || sessionStorage.getItem('ct') || '';
if (ct) { sessionStorage.setItem('ct', ct); history.replaceState(null, '', location.pathname); }
const api = (path, init = {}) => fetch('/api/cashier/' + path, { ...init,
  headers: { authorization: 'Bearer ' + ct, 'content-type': 'application/json', ...(init.headers || {}) } }).then((r) => r.json());
const el = (id) => document.getElementById(id);
const text = (v) => String(v).replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');
async function refresh() {
  const [session, balance] = await Promise.all([api('session'), api('balance')]);
  if (session.code !== 'OK') { el('out').innerHTML = '<p class="err">' + text(session.message) + '</p>'; return; }
  const s = session.data, task = s.active_task;
  el('out').innerHTML = '<p>Send funds to <code>' + text(s.address.address) + '</code> (' + text(s.address.network_code) + ')</p>'
    + '<p>Session expires ' + text(s.expires_at) + '</p><table>'
    + (balance.data.items || []).map((i) => '<tr><td>' + text(i.symbol) + '</td><td>' + text(i.balance_available) + '</td></tr>').join('')
    + '</table><p>' + (task ? 'Collection ' + text(task.task_no) + ': status ' + text(task.status) : 'No collection yet') + '</p>';
  el('asset').innerHTML = (balance.data.items || []).map((i) => '<option>' + text(i.symbol) + '</option>').join('');
  el('collect').disabled = task !== null;
}
el('collect').onclick = async () => {
  const r = await api('collect', { method: 'POST', headers: { 'idempotency-key': crypto.randomUUID() },
    body: JSON.stringify({ asset_symbol: el('asset').value }) });
  el('msg').textContent = r.code === 'OK' ? 'Collection started.' : r.message;
  refresh();
};
refresh(); setInterval(refresh, 10000);
</script></body></html>
`;

/** CSP source of one inline block: the SHA-256 of its exact text, as a browser computes it. */
function inlineHashes(tag: 'script' | 'style'): string[] {
  const blocks = [...CASHIER_PAGE_HTML.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))];
  return blocks.map((m) => `'sha256-${createHash('sha256').update(m[1] ?? '').digest('base64')}'`);
}

/**
 * Headers of the payer page. A payment page must not be framed (clickjacking) and runs only its own inline code,
 * pinned by hash: an injected script could read the `ct_` token from sessionStorage.
 */
export const CASHIER_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'", `script-src ${inlineHashes('script').join(' ')}`, `style-src ${inlineHashes('style').join(' ')}`,
    "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};
