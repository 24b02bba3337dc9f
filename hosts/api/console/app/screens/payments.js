// Payments (issue #38 item 1): the payment requests (GET /cashier/tokens, its `reference` filter, the payment's status),
// a request's detail (GET /cashier/tokens/{tokenNo} with the deposits to its sub-address, its forward and its refunds:
// a timeline and the transfers with their txids), creating one (POST /cashier/tokens: the payer link and its QR code,
// rendered by the API) and refunding one (POST /transfers with refund_of, with step-up). Lists refresh by polling.
import { html, useRef, useState } from '../lib/html.js';
import { newIdempotencyKey } from '../lib/api.js';
import { Amount, EmptyState, ErrorBanner, Field, Loading, Notice, Pager, Table, Time, useAction } from '../lib/components.js';
import { formatAmount, parseAmount } from '../lib/format.js';
import { usePoll } from '../lib/poll.js';
import {
  ALL_ROLES, ASSETS, CREATE_ROLES, Filters, isoOf, Mono, msOf, pageOf, queryOf, REFUND_ROLES, useFocusWhenReady, withShared,
} from './money-parts.js';

const STATUSES = ['awaiting', 'partially_paid', 'paid', 'overpaid', 'expired', 'paid_late'];
const PER_PAGE = 20;
/** With a status filter the API cannot apply, the newest SCAN_PAGES x 100 requests are searched. */
const SCAN_PAGES = 3;
const LIST_POLL_MS = 5_000;
/** The detail reads 3 routes a round (4+ with refunds): every 10 s keeps it well under 60 GETs a minute. */
const DETAIL_POLL_MS = 10_000;
const TTLS = [60, 120, 480, 1440];
/** Command statuses (spec §2) of a refund's withdrawal; 4, 5, 6 gave nothing back. */
const COMMAND_STATUS = { 1: 'PENDING', 2: 'RUNNING', 3: 'SUCCESS', 4: 'FAILED', 5: 'REJECTED', 6: 'CANCELLED' };
const ENDED_WITHOUT_MONEY = new Set([4, 5, 6]);
const COLLECTION_STATUS = { 1: 'PENDING', 2: 'FUNDING_TRX', 6: 'COLLECTING', 8: 'RECOVER_TRX', 11: 'DONE', 12: 'FAILED', 15: 'UNDELEGATING_ENERGY', 16: 'ACQUIRING_ENERGY', 17: 'WAIT_ENERGY_READY' };

const messages = withShared({
  en: {
    list_label: 'Search payment requests', reference: 'Reference', reference_hint: 'The order id, exactly as given.', created: 'Created',
    asked: 'Asked', received: 'Received', token: 'Token', plain: 'plain token', requests: 'Payment requests', new_request: 'New payment request',
    st_awaiting: 'awaiting', st_partially_paid: 'partially paid', st_paid: 'paid', st_overpaid: 'overpaid', st_expired: 'expired', st_paid_late: 'paid late',
    scanned: 'Status searched among the newest {n} requests.', none_found: 'No payment request matches.',
    // create
    create_title: 'New payment request', create: 'Create payment request', description: 'Description', description_hint: 'What is paid for; the payer sees it.',
    pay_within: 'Pay within (minutes)', pay_within_hint: 'The fixed deadline; empty: the link lifetime.', ttl: 'Link lifetime (minutes)',
    amount_hint: 'In units of the asset, e.g. 25 or 12.5.', amount_invalid: 'Enter an amount in units, with at most 6 decimals.',
    no_subs: 'There is no sub-address yet: create one under Addresses first.', created_ok: 'Payment request {ref} created.',
    payer_link: 'Payer link', payer_link_hint: 'Send this link to the payer. It holds the request\'s token and is shown only now.',
    qr_alt: 'QR code of the payer link', copy: 'Copy link', copied: 'Copied.', open_detail: 'Open the request', another: 'Create another',
    // detail
    summary: 'Summary', remaining: 'Remaining', confirming: 'Confirming', deadline: 'Deadline', expires: 'Link expires',
    token_status: 'Token', timeline: 'Timeline', transfers: 'Transfers to the sub-address', forwards: 'Forwards to the main address',
    refunds: 'Refunds', no_transfers: 'No transfer seen yet.', confirmed_at: 'Confirmed', detected: 'Seen', block: 'Block',
    ev_created: 'Payment request created for {amount}', ev_seen: 'Payment of {amount} seen', ev_confirmed: 'Payment of {amount} confirmed',
    ev_reverted: 'Payment of {amount} dropped by a reorganisation', ev_deadline: 'Payment deadline', ev_deadline_next: 'Payment deadline (to come)',
    ev_forward: 'Forward to the main address started ({task})', ev_forward_end: 'Forward {status} ({task})', ev_forward_wait: 'Forward waits: {reason}',
    ev_refund: 'Refund of {amount} requested ({command})', ev_refund_end: 'Refund {status} ({command})', ev_disabled: 'Link disabled: {reason}',
    task: 'Task', swept: 'Swept', started: 'Started', finished: 'Finished', command: 'Command', requested: 'Requested',
    // refund
    refund_title: 'Refund', refund: 'Refund payment', to_address: 'Send to address', from_address: 'Send from',
    refund_hint: 'Refundable now: {amount}. A refund is a withdrawal: it asks for your authentication code and follows the withdrawal policy.',
    from_sub: 'The request\'s sub-address', from_main: 'The main address', refund_ok: 'Refund requested: withdrawal {command}.',
    refund_amount_hint: 'In units of {asset}.', not_found_hint: 'Check the token number.',
  },
  zh: {
    list_label: '搜索收款请求', reference: '订单号', reference_hint: '创建时填写的订单号，需完全一致。', created: '创建时间',
    asked: '应收', received: '已收', token: '令牌', plain: '普通令牌', requests: '收款请求', new_request: '新建收款请求',
    st_awaiting: '待付款', st_partially_paid: '部分付款', st_paid: '已付款', st_overpaid: '超额付款', st_expired: '已过期', st_paid_late: '逾期付款',
    scanned: '状态筛选范围：最近 {n} 笔请求。', none_found: '没有匹配的收款请求。',
    create_title: '新建收款请求', create: '创建收款请求', description: '说明', description_hint: '付款内容，付款人可见。',
    pay_within: '付款期限（分钟）', pay_within_hint: '固定截止时间；留空则为链接有效期。', ttl: '链接有效期（分钟）',
    amount_hint: '以资产单位填写，如 25 或 12.5。', amount_invalid: '请输入金额（单位），最多 6 位小数。',
    no_subs: '还没有子地址：请先在“地址”中创建。', created_ok: '收款请求 {ref} 已创建。',
    payer_link: '付款链接', payer_link_hint: '将此链接发给付款人。链接包含请求的令牌，仅显示这一次。',
    qr_alt: '付款链接的二维码', copy: '复制链接', copied: '已复制。', open_detail: '查看请求', another: '再建一笔',
    summary: '概要', remaining: '待付', confirming: '确认中', deadline: '截止时间', expires: '链接过期',
    token_status: '令牌', timeline: '时间线', transfers: '转入子地址的交易', forwards: '转至主地址',
    refunds: '退款', no_transfers: '尚未发现转账。', confirmed_at: '确认时间', detected: '发现时间', block: '区块',
    ev_created: '创建收款请求：{amount}', ev_seen: '发现付款 {amount}', ev_confirmed: '付款 {amount} 已确认',
    ev_reverted: '付款 {amount} 因区块重组被撤销', ev_deadline: '付款截止', ev_deadline_next: '付款截止（未到）',
    ev_forward: '开始转至主地址（{task}）', ev_forward_end: '转至主地址：{status}（{task}）', ev_forward_wait: '转出等待中：{reason}',
    ev_refund: '申请退款 {amount}（{command}）', ev_refund_end: '退款 {status}（{command}）', ev_disabled: '链接已停用：{reason}',
    task: '任务', swept: '归集金额', started: '开始', finished: '结束', command: '指令', requested: '申请时间',
    refund_title: '退款', refund: '退款', to_address: '退款至地址', from_address: '付款地址',
    refund_hint: '当前可退：{amount}。退款即提现：需要输入验证码，并遵循提现策略。',
    from_sub: '该请求的子地址', from_main: '主地址', refund_ok: '已申请退款：提现指令 {command}。',
    refund_amount_hint: '以 {asset} 为单位。', not_found_hint: '请检查令牌编号。',
  },
});

const statusText = (t, status) => t(`st_${status}`);

/** One page of the list: the API's page, or with a status the newest requests searched and paged here. */
async function loadList(api, { reference, status, page }, background) {
  const query = { reference: reference || undefined };
  if (status === '') {
    const answer = await api.get('/cashier/tokens', { ...query, page, per_page: PER_PAGE }, { background });
    return { rows: answer.data, pages: answer.meta.last_page, scanned: null };
  }
  const matching = [];
  let scanned = 0;
  let more = false;
  for (let p = 1; p <= SCAN_PAGES; p++) {
    const answer = await api.get('/cashier/tokens', { ...query, page: p, per_page: 100 }, { background });
    scanned += answer.data.length;
    matching.push(...answer.data.filter((token) => token.payment?.status === status));
    more = p < answer.meta.last_page;
    if (!more) break;
  }
  return { rows: matching.slice((page - 1) * PER_PAGE, page * PER_PAGE), pages: Math.max(1, Math.ceil(matching.length / PER_PAGE)), scanned: more ? scanned : null };
}

function PaymentList({ api, session, t, route, lang }) {
  const reference = route.query.get('reference') ?? '';
  const status = STATUSES.includes(route.query.get('status')) ? route.query.get('status') : '';
  const page = pageOf(route.query);
  const [refText, setRefText] = useState(reference);
  const [statusSel, setStatusSel] = useState(status);
  const { data, error } = usePoll(({ background }) => loadList(api, { reference, status, page }, background), { intervalMs: LIST_POLL_MS, deps: [reference, status, page] });
  const goTo = (values) => route.go(`/payments${queryOf(values)}`);
  const columns = [
    { key: 'reference', label: t('reference'), render: (r) => html`<a href=${`#/payments/${encodeURIComponent(r.token_no)}`}>${r.payment?.reference ?? r.token_no}</a>` },
    { key: 'created_at', label: t('created'), render: (r) => html`<${Time} iso=${r.created_at} lang=${lang} />` },
    { key: 'amount', label: t('asked'), numeric: true, render: (r) => (r.payment ? html`<${Amount} value=${r.payment.amount} asset=${r.payment.asset_symbol} lang=${lang} />` : '—') },
    { key: 'received', label: t('received'), numeric: true, render: (r) => (r.payment ? html`<${Amount} value=${r.payment.received} asset=${r.payment.asset_symbol} lang=${lang} />` : '—') },
    { key: 'status', label: t('status'), render: (r) => (r.payment ? statusText(t, r.payment.status) : html`<span class="muted">${t('plain')} (${r.status})</span>`) },
    { key: 'address', label: t('address'), render: (r) => html`<${Mono} value=${r.address} />` },
    { key: 'token_no', label: t('token'), render: (r) => html`<${Mono} value=${r.token_no} />` },
  ];
  return html`
    ${CREATE_ROLES.includes(session.role) ? html`<p><a class="button primary" href="#/payments/new">${t('new_request')}</a></p>` : null}
    <${Filters} label=${t('list_label')} t=${t} onSubmit=${() => goTo({ reference: refText.trim(), status: statusSel })}
      onClear=${reference || status ? () => { setRefText(''); setStatusSel(''); goTo({}); } : null}>
      <${Field} label=${t('reference')} hint=${t('reference_hint')} value=${refText} onInput=${setRefText} maxlength="120" />
      <${Field} label=${t('status')} as="select" value=${statusSel} onInput=${setStatusSel}
        options=${[{ value: '', label: t('all') }, ...STATUSES.map((s) => ({ value: s, label: statusText(t, s) }))]} />
    </${Filters}>
    <${ErrorBanner} error=${error} />
    ${data === undefined ? (error ? null : html`<${Loading} t=${t} />`) : html`
      ${data.rows.length === 0 ? html`<${EmptyState}>${reference || status ? t('none_found') : t('empty')}</${EmptyState}>`
        : html`<${Table} t=${t} caption=${t('requests')} captionHidden=${true} rows=${data.rows} rowKey=${(r) => r.token_no} columns=${columns} />`}
      ${data.scanned !== null ? html`<p class="muted">${t('scanned', { n: data.scanned })}</p>` : null}
      <${Pager} t=${t} page=${page} pages=${data.pages} onPage=${(p) => goTo({ reference, status, page: p })} />
      <p class="muted">${t('refresh_note')}</p>`}`;
}

/** Copies the link; where the page may not use the clipboard (plain HTTP), selects it for the person to copy. */
function CopyLink({ url, t }) {
  const [done, setDone] = useState(false);
  const input = useRef(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setDone(true);
    } catch {
      input.current?.select();
    }
  };
  return html`<div class="actions">
    <input ref=${input} class="visually-hidden" tabindex="-1" aria-hidden="true" readonly value=${url} />
    <button type="button" onClick=${copy}>${t('copy')}</button>
    ${done ? html`<span role="status">${t('copied')}</span>` : null}
  </div>`;
}

function CreateRequest({ api, t, lang, route }) {
  const subs = usePoll(({ background }) => api.get('/wallets', { type: 2, per_page: 100 }, { background }), { intervalMs: 60_000 });
  const [form, setForm] = useState({ address: '', asset: 'USDT', amount: '', reference: '', description: '', payWithin: '', ttl: '60' });
  const [amountError, setAmountError] = useState(null);
  const [created, setCreated] = useState(null);
  const set = (key) => (value) => setForm((f) => ({ ...f, [key]: value }));
  const createdHeading = useFocusWhenReady(created !== null);
  const addresses = subs.data?.items ?? [];
  const address = form.address || addresses[0]?.address || '';
  const [submit, busy, error] = useAction(async () => {
    const amount = parseAmount(form.amount, form.asset);
    if (amount === null) { setAmountError(t('amount_invalid')); return; }
    setAmountError(null);
    const body = { address, amount, asset_symbol: form.asset, ttl_minutes: Number(form.ttl) };
    if (form.reference.trim() !== '') body.reference = form.reference.trim();
    if (form.description.trim() !== '') body.description = form.description.trim();
    if (form.payWithin.trim() !== '') body.pay_within_minutes = Number(form.payWithin.trim());
    setCreated(await api.post('/cashier/tokens', body));
  });
  if (created !== null) {
    return html`<section class="card" aria-labelledby="created-title">
      <h2 id="created-title" tabindex="-1" ref=${createdHeading}>${t('payer_link')}</h2>
      <${Notice} kind="success"><p>${t('created_ok', { ref: created.payment?.reference ?? created.token_no })}</p></${Notice}>
      <p>${t('payer_link_hint')}</p>
      <p><a href=${created.payer_url} target="_blank" rel="noopener noreferrer" class="mono">${created.payer_url}</a></p>
      <${CopyLink} url=${created.payer_url} t=${t} />
      ${created.payer_qr_svg ? html`<img class="qr" width="240" height="240" alt=${t('qr_alt')} src=${`data:image/svg+xml;charset=utf-8,${encodeURIComponent(created.payer_qr_svg)}`} />` : null}
      <div class="actions">
        <a class="button primary" href=${`#/payments/${encodeURIComponent(created.token_no)}`}>${t('open_detail')}</a>
        <button type="button" onClick=${() => { setCreated(null); setForm((f) => ({ ...f, amount: '', reference: '', description: '' })); }}>${t('another')}</button>
      </div>
    </section>`;
  }
  return html`<section class="card narrow" aria-labelledby="create-title">
    <h2 id="create-title">${t('create_title')}</h2>
    <${ErrorBanner} error=${subs.error} />
    ${subs.data !== undefined && addresses.length === 0 ? html`<${Notice}><p>${t('no_subs')} <a href="#/addresses">${t('address')}</a></p></${Notice}>` : null}
    <form onSubmit=${(e) => { e.preventDefault(); submit(); }}>
      <${ErrorBanner} error=${error} />
      <${Field} label=${t('address')} as="select" value=${address} onInput=${set('address')} required
        options=${addresses.map((w) => ({ value: w.address, label: w.address_label ? `${w.address_label} · ${w.address}` : w.address }))} />
      <${Field} label=${t('asset')} as="select" value=${form.asset} onInput=${set('asset')} options=${ASSETS.map((a) => ({ value: a, label: a }))} />
      <${Field} label=${t('amount')} hint=${t('amount_hint')} value=${form.amount} onInput=${set('amount')} inputmode="decimal" autocomplete="off" required error=${amountError} />
      <${Field} label=${t('reference')} value=${form.reference} onInput=${set('reference')} maxlength="120" autocomplete="off" />
      <${Field} label=${t('description')} hint=${t('description_hint')} value=${form.description} onInput=${set('description')} maxlength="200" autocomplete="off" />
      <${Field} label=${t('pay_within')} hint=${t('pay_within_hint')} value=${form.payWithin} onInput=${set('payWithin')} inputmode="numeric" autocomplete="off" />
      <${Field} label=${t('ttl')} as="select" value=${form.ttl} onInput=${set('ttl')} options=${TTLS.map((m) => ({ value: String(m), label: String(m) }))} />
      <div class="actions">
        <button type="submit" class="primary" disabled=${busy}>${busy ? t('loading') : t('create')}</button>
        <a class="button" href="#/payments">${t('cancel')}</a>
      </div>
    </form>
  </section>`;
}

/** Reads one part of the detail; its failure stays beside it. */
const settle = (promise) => promise.then((value) => ({ value }), (error) => ({ error }));

async function loadDetail(api, tokenNo, background) {
  const opts = { background };
  const token = await api.get(`/cashier/tokens/${encodeURIComponent(tokenNo)}`, undefined, opts);
  const since = msOf(token.created_at);
  const payment = token.payment;
  const [deposits, forwards, refunds] = await Promise.all([
    payment ? settle(api.get('/deposits', { address: token.address, asset_symbol: payment.asset_symbol, per_page: 100 }, opts)
      .then((page) => page.items.filter((d) => msOf(d.detected_at) >= since - 1_000).reverse())) : Promise.resolve({ value: [] }),
    settle(api.get('/collections', { address: token.address, per_page: 20 }, opts).then((page) => page.items.filter((c) => msOf(c.started_at) >= since).reverse())),
    Promise.all((payment?.refunds ?? []).map((r) => settle(api.get(`/commands/${encodeURIComponent(r.command_no)}`, undefined, opts)).then((c) => ({ ...r, command: c.value ?? null })))),
  ]);
  return { token, deposits, forwards, refunds };
}

/** The events of a request, oldest first. */
function timelineOf({ token, deposits, forwards, refunds }, t, lang, now) {
  const p = token.payment;
  const money = (amount) => formatAmount(amount, p?.asset_symbol, { lang });
  const events = [{ at: token.created_at, text: p ? t('ev_created', { amount: money(p.amount) }) : t('ev_created', { amount: '—' }) }];
  for (const d of deposits.value ?? []) {
    events.push({ at: d.detected_at, text: t('ev_seen', { amount: money(d.amount) }), txid: d.txid });
    if (d.confirmed_at) events.push({ at: d.confirmed_at, text: t('ev_confirmed', { amount: money(d.amount) }), txid: d.txid });
    if (d.status === 'reverted') events.push({ at: d.detected_at, text: t('ev_reverted', { amount: money(d.amount) }), txid: d.txid });
  }
  if (p) events.push({ at: p.deadline, text: msOf(p.deadline) > now ? t('ev_deadline_next') : t('ev_deadline') });
  for (const c of forwards.value ?? []) {
    events.push({ at: c.started_at, text: t('ev_forward', { task: c.task_no }) });
    if (c.finished_at) events.push({ at: c.finished_at, text: t('ev_forward_end', { task: c.task_no, status: COLLECTION_STATUS[c.status] ?? c.status }), txid: c.sweep_tx_hash });
  }
  if (p?.forward) events.push({ at: p.forward.since, text: t('ev_forward_wait', { reason: p.forward.reason }) });
  for (const r of refunds) {
    events.push({ at: r.requested_at, text: t('ev_refund', { amount: money(r.amount), command: r.command_no }) });
    if (r.command?.finished_at) events.push({ at: r.command.finished_at, text: t('ev_refund_end', { command: r.command_no, status: COMMAND_STATUS[r.command.status] }), txid: r.command.txid });
  }
  if (token.disabled_at) events.push({ at: token.disabled_at, text: t('ev_disabled', { reason: token.disable_reason ?? '—' }) });
  return events.map((e, i) => ({ ...e, i })).sort((a, b) => (msOf(a.at) - msOf(b.at)) || (a.i - b.i));
}

function RefundForm({ api, t, lang, token, refundable, onDone }) {
  const p = token.payment;
  const mains = usePoll(({ background }) => api.get('/wallets', { type: 1, per_page: 1 }, { background }), { intervalMs: 300_000 });
  const main = mains.data?.items?.[0]?.address;
  const forwarded = p.status === 'paid' || p.status === 'overpaid';
  const [form, setForm] = useState({ to: '', amount: formatAmount(refundable, p.asset_symbol, { withAsset: false }).replace(/,/g, ''), from: '' });
  const [amountError, setAmountError] = useState(null);
  const [done, setDone] = useState(null);
  const key = useRef(newIdempotencyKey());
  const set = (k) => (value) => setForm((f) => ({ ...f, [k]: value }));
  const from = form.from || (forwarded && main ? main : token.address);
  const [submit, busy, error] = useAction(async () => {
    const amount = parseAmount(form.amount, p.asset_symbol);
    if (amount === null) { setAmountError(t('amount_invalid')); return; }
    setAmountError(null);
    const accepted = await api.post('/transfers', {
      from_address: from, to_address: form.to.trim(), asset_symbol: p.asset_symbol, amount, refund_of: token.token_no,
    }, { stepUp: true, idempotencyKey: key.current });
    key.current = newIdempotencyKey();
    setDone(accepted);
    onDone();
  });
  const sources = [{ value: token.address, label: `${t('from_sub')} · ${token.address}` }, ...(main ? [{ value: main, label: `${t('from_main')} · ${main}` }] : [])];
  return html`<section class="card narrow" aria-labelledby="refund-title">
    <h2 id="refund-title">${t('refund_title')}</h2>
    <p>${t('refund_hint', { amount: formatAmount(refundable, p.asset_symbol, { lang }) })}</p>
    ${done ? html`<${Notice} kind="success"><p>${t('refund_ok', { command: done.command_no })}</p></${Notice}>` : null}
    <form onSubmit=${(e) => { e.preventDefault(); submit(); }}>
      <${ErrorBanner} error=${error} />
      <${Field} label=${t('to_address')} value=${form.to} onInput=${set('to')} required autocomplete="off" spellcheck="false" />
      <${Field} label=${t('amount')} hint=${t('refund_amount_hint', { asset: p.asset_symbol })} value=${form.amount} onInput=${set('amount')} inputmode="decimal" required error=${amountError} />
      <${Field} label=${t('from_address')} as="select" value=${from} onInput=${set('from')} options=${sources} />
      <div class="actions"><button type="submit" class="primary" disabled=${busy}>${busy ? t('loading') : t('refund')}</button></div>
    </form>
  </section>`;
}

function PaymentDetail({ api, session, t, route, lang, tokenNo }) {
  const { data, error, refresh } = usePoll(({ background }) => loadDetail(api, tokenNo, background), { intervalMs: DETAIL_POLL_MS, deps: [tokenNo] });
  const heading = useFocusWhenReady(data !== undefined);
  const back = html`<p><a href="#/payments">${t('back')}</a></p>`;
  if (data === undefined) return html`${back}${error ? html`<${ErrorBanner} error=${error} />` : html`<${Loading} t=${t} />`}`;
  const { token, deposits, forwards, refunds } = data;
  const p = token.payment;
  const money = (v) => html`<${Amount} value=${v} asset=${p.asset_symbol} lang=${lang} />`;
  const counted = refunds.filter((r) => !ENDED_WITHOUT_MONEY.has(r.command?.status ?? r.status)).reduce((sum, r) => sum + BigInt(r.amount), 0n);
  const refundable = p ? BigInt(p.received) - counted : 0n;
  const events = timelineOf(data, t, lang, Date.now());
  return html`${back}
    <${ErrorBanner} error=${error} />
    <section class="part" aria-labelledby="summary-title">
      <h2 id="summary-title" tabindex="-1" ref=${heading}>${p?.reference ?? token.token_no}</h2>
      <dl class="facts">
        ${p ? html`<dt>${t('status')}</dt><dd><strong>${statusText(t, p.status)}</strong></dd>
          <dt>${t('asked')}</dt><dd>${money(p.amount)}</dd>
          <dt>${t('received')}</dt><dd>${money(p.received)}</dd>
          <dt>${t('remaining')}</dt><dd>${money(p.remaining)}</dd>
          <dt>${t('confirming')}</dt><dd>${money(p.confirming)}</dd>
          <dt>${t('deadline')}</dt><dd><${Time} iso=${p.deadline} lang=${lang} /></dd>
          ${p.description ? html`<dt>${t('description')}</dt><dd>${p.description}</dd>` : null}` : null}
        <dt>${t('address')}</dt><dd><a href=${`#/addresses/${encodeURIComponent(token.address)}`}><${Mono} value=${token.address} /></a></dd>
        <dt>${t('token')}</dt><dd><${Mono} value=${token.token_no} /> (${token.status})</dd>
        <dt>${t('created')}</dt><dd><${Time} iso=${token.created_at} lang=${lang} /></dd>
        <dt>${t('expires')}</dt><dd><${Time} iso=${token.expires_at} lang=${lang} /></dd>
      </dl>
    </section>
    <section class="part" aria-labelledby="timeline-title">
      <h2 id="timeline-title">${t('timeline')}</h2>
      <ol class="timeline">${events.map((e) => html`<li><${Time} iso=${isoOf(e.at)} lang=${lang} />${e.text}${e.txid ? html` · <${Mono} value=${e.txid} />` : null}</li>`)}</ol>
    </section>
    ${p ? html`<section class="part" aria-labelledby="transfers-title">
      <h2 id="transfers-title">${t('transfers')}</h2>
      <${ErrorBanner} error=${deposits.error} />
      ${deposits.value && deposits.value.length === 0 ? html`<${EmptyState}>${t('no_transfers')}</${EmptyState}>` : null}
      ${deposits.value && deposits.value.length > 0 ? html`<${Table} t=${t} caption=${t('transfers')} captionHidden=${true} rows=${deposits.value} rowKey=${(d) => d.deposit_id} columns=${[
        { key: 'txid', label: t('txid'), render: (d) => html`<${Mono} value=${d.txid} />` },
        { key: 'amount', label: t('amount'), numeric: true, render: (d) => money(d.amount) },
        { key: 'status', label: t('status'), render: (d) => d.status },
        { key: 'detected_at', label: t('detected'), render: (d) => html`<${Time} iso=${isoOf(d.detected_at)} lang=${lang} />` },
        { key: 'confirmed_at', label: t('confirmed_at'), render: (d) => html`<${Time} iso=${isoOf(d.confirmed_at)} lang=${lang} />` },
        { key: 'block', label: t('block'), numeric: true, render: (d) => String(d.block_number) },
      ]} />` : null}
    </section>` : null}
    ${forwards.error || (forwards.value ?? []).length > 0 ? html`<section class="part" aria-labelledby="forwards-title">
      <h2 id="forwards-title">${t('forwards')}</h2>
      <${ErrorBanner} error=${forwards.error} />
      ${forwards.value ? html`<${Table} t=${t} caption=${t('forwards')} captionHidden=${true} rows=${forwards.value} rowKey=${(c) => c.task_no} columns=${[
        { key: 'task_no', label: t('task'), render: (c) => html`<a href=${`#/collections/${encodeURIComponent(c.task_no)}`}>${c.task_no}</a>` },
        { key: 'status', label: t('status'), render: (c) => COLLECTION_STATUS[c.status] ?? String(c.status) },
        { key: 'swept', label: t('swept'), numeric: true, render: (c) => (c.swept_amount === null ? '—' : html`<${Amount} value=${c.swept_amount} asset=${c.asset_symbol} lang=${lang} />`) },
        { key: 'txid', label: t('txid'), render: (c) => html`<${Mono} value=${c.sweep_tx_hash} />` },
        { key: 'started_at', label: t('started'), render: (c) => html`<${Time} iso=${isoOf(c.started_at)} lang=${lang} />` },
      ]} />` : null}
    </section>` : null}
    ${refunds.length > 0 ? html`<section class="part" aria-labelledby="refunds-title">
      <h2 id="refunds-title">${t('refunds')}</h2>
      <${Table} t=${t} caption=${t('refunds')} captionHidden=${true} rows=${refunds} rowKey=${(r) => r.command_no} columns=${[
        { key: 'command_no', label: t('command'), render: (r) => html`<${Mono} value=${r.command_no} />` },
        { key: 'amount', label: t('amount'), numeric: true, render: (r) => money(r.amount) },
        { key: 'status', label: t('status'), render: (r) => COMMAND_STATUS[r.command?.status ?? r.status] ?? String(r.status) },
        { key: 'txid', label: t('txid'), render: (r) => html`<${Mono} value=${r.command?.txid} />` },
        { key: 'requested_at', label: t('requested'), render: (r) => html`<${Time} iso=${r.requested_at} lang=${lang} />` },
      ]} />
    </section>` : null}
    ${p && refundable > 0n && REFUND_ROLES.includes(session.role)
      ? html`<${RefundForm} api=${api} t=${t} lang=${lang} token=${token} refundable=${refundable.toString()} onDone=${refresh} />` : null}`;
}

function Payments(props) {
  const [first] = props.route.rest;
  if (first === 'new') {
    return CREATE_ROLES.includes(props.session.role)
      ? html`<${CreateRequest} ...${props} />`
      : html`<p role="alert">${props.t('forbidden_screen')}</p>`;
  }
  if (first !== undefined) return html`<${PaymentDetail} ...${props} tokenNo=${first} />`;
  return html`<${PaymentList} ...${props} />`;
}

export default {
  id: 'payments', path: '/payments', roles: ALL_ROLES, title: { en: 'Payments', zh: '收款' }, messages, Screen: Payments,
};
