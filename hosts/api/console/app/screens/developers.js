// Developers (issue #38 item 1), for the owner and admins: Developer API Tokens (GET/POST /api-tokens, the new token
// shown once; PUT /api-tokens/{id}/expiry; DELETE /api-tokens/{id}; each write with step-up), the webhook URL, secret
// and event types (GET /subscriptions/config/developer with the platform's review of the URL; PUT /subscriptions/config
// with step-up), a test event (POST /webhooks/debug/test), and the deliveries (GET /webhooks/deliveries, live) with
// redelivery (POST /webhooks/deliveries/{id}/redeliver).
import { html, useState } from '../lib/html.js';
import { ErrorBanner, Field, Loading, Notice, Pager, Table, Time, useAction, useId } from '../lib/components.js';
import { usePoll } from '../lib/poll.js';
import { ADMIN_ROLES, localDayIso } from './screen-common.js';

const SPEC_EVENTS = ['withdrawal.completed', 'withdrawal.failed', 'collection.completed', 'collection.failed'];
const OPT_IN_EVENTS = ['deposit.pending', 'deposit.confirmed', 'deposit.reverted', 'payment.paid', 'payment.expired', 'payment.paid_late', 'ledger.discrepancy'];
const DELIVERY = { 1: 'PENDING', 2: 'DELIVERING', 3: 'SUCCEEDED', 4: 'RETRYING', 5: 'DEAD', 6: 'SKIPPED' };

const messages = {
  en: {
    actions: 'Actions', tokens: 'API tokens', name: 'Name', created: 'Created', last_used: 'Last used', expires: 'Expires', never: 'never', review: 'Needs review since',
    new_token: 'New API token', expiry: 'Expiry date (optional)', expiry_hint: 'The token stops working at the end of this day; empty: never.',
    create: 'Create token', token_once: 'Copy this token now: it is shown only once.', revoke: 'Revoke', revoked: 'Token {name} revoked.',
    set_expiry: 'Set expiry', save_expiry: 'Save expiry', expiry_of: 'Expiry date of {name}', remaining: '{n} more tokens may be created.',
    webhook: 'Webhook', webhook_url: 'Webhook URL', webhook_secret: 'New webhook secret', secret_hint: 'Write-only. Leave empty to keep the current secret.',
    secret_set: 'A secret is set.', secret_unset: 'No secret is set.', events: 'Event types', always: 'always sent', save: 'Save webhook settings',
    saved: 'Webhook settings saved.', review_state: 'Review', review_unconfigured: 'no URL', review_pending: 'waiting for the platform\'s review',
    review_verified: 'approved', pending_url: 'URL under review', approved_url: 'Approved URL', review_note: 'Review note', test: 'Send a test event',
    test_done: 'Test event sent to {url}: {result}.', delivered: 'delivered', not_delivered: 'not delivered',
    deliveries: 'Deliveries', event: 'Event', status: 'Status', attempts: 'Attempts', last_attempt: 'Last attempt', redeliver: 'Redeliver',
    redelivered: 'Sent again: {result}.', filter_status: 'Delivery status', all: 'All', no_subscription: 'The developer subscription is not active.',
  },
  zh: {
    actions: '操作', tokens: 'API 令牌', name: '名称', created: '创建时间', last_used: '最近使用', expires: '过期时间', never: '永不', review: '需复核（自）',
    new_token: '新建 API 令牌', expiry: '过期日期（可选）', expiry_hint: '令牌在当天结束时失效；留空则永不过期。',
    create: '创建令牌', token_once: '请立即复制此令牌：它只显示这一次。', revoke: '吊销', revoked: '令牌 {name} 已吊销。',
    set_expiry: '设置过期', save_expiry: '保存过期时间', expiry_of: '{name} 的过期日期', remaining: '还可创建 {n} 个令牌。',
    webhook: 'Webhook', webhook_url: 'Webhook 地址', webhook_secret: '新的 Webhook 密钥', secret_hint: '只写。留空则保留当前密钥。',
    secret_set: '已设置密钥。', secret_unset: '未设置密钥。', events: '事件类型', always: '始终发送', save: '保存 Webhook 设置',
    saved: 'Webhook 设置已保存。', review_state: '审核', review_unconfigured: '未设置地址', review_pending: '等待平台审核',
    review_verified: '已批准', pending_url: '审核中的地址', approved_url: '已批准的地址', review_note: '审核备注', test: '发送测试事件',
    test_done: '测试事件已发送至 {url}：{result}。', delivered: '已送达', not_delivered: '未送达',
    deliveries: '投递记录', event: '事件', status: '状态', attempts: '尝试次数', last_attempt: '最近一次', redeliver: '重新投递',
    redelivered: '已重新发送：{result}。', filter_status: '投递状态', all: '全部', no_subscription: '开发者订阅未开通。',
  },
};

function ExpiryForm({ api, t, token, onDone }) {
  const [day, setDay] = useState('');
  const [save, busy, error] = useAction(async () => {
    await api.put(`/api-tokens/${token.id}/expiry`, { expires_at: day ? localDayIso(day, true) : null }, { stepUp: true });
    onDone();
  });
  return html`<form onSubmit=${(e) => { e.preventDefault(); save(); }}>
    <${Field} label=${t('expiry_of', { name: token.name })} type="date" value=${day} onInput=${setDay} />
    <button type="submit" disabled=${busy}>${t('save_expiry')}</button>
    <${ErrorBanner} error=${error} />
  </form>`;
}

function TokenActions({ api, t, token, onDone }) {
  const [open, setOpen] = useState(false);
  const [revoke, busy, error] = useAction(async () => {
    await api.del(`/api-tokens/${token.id}`, undefined, { stepUp: true });
    onDone(t('revoked', { name: token.name }));
  });
  return html`<div>
    <div class="actions">
      <button type="button" aria-expanded=${String(open)} onClick=${() => setOpen(!open)} aria-label=${`${t('set_expiry')}: ${token.name}`}>${t('set_expiry')}</button>
      <button type="button" disabled=${busy} onClick=${() => revoke()} aria-label=${`${t('revoke')}: ${token.name}`}>${t('revoke')}</button>
    </div>
    ${open ? html`<${ExpiryForm} api=${api} t=${t} token=${token} onDone=${() => { setOpen(false); onDone(null); }} />` : null}
    <${ErrorBanner} error=${error} />
  </div>`;
}

function Tokens({ api, t, lang }) {
  const { data, error, refresh } = usePoll(({ background }) => api.get('/api-tokens', undefined, { background }), { intervalMs: 30_000 });
  const [form, setForm] = useState({ name: '', expiry: '' });
  const [created, setCreated] = useState(null);
  const [notice, setNotice] = useState(null);
  const [create, busy, createError] = useAction(async () => {
    const body = { name: form.name.trim(), ...(form.expiry ? { expires_at: localDayIso(form.expiry, true) } : {}) };
    setCreated(await api.post('/api-tokens', body, { stepUp: true }));
    setForm({ name: '', expiry: '' });
    refresh();
  });
  const done = (text) => { setNotice(text); refresh(); };
  return html`<section aria-labelledby="tokens-title">
    <h2 id="tokens-title">${t('tokens')}</h2>
    ${notice ? html`<${Notice} kind="success">${notice}</${Notice}>` : null}
    <${ErrorBanner} error=${error} />
    ${data === undefined ? (error ? null : html`<${Loading} t=${t} />`) : html`
      <${Table} t=${t} caption=${t('tokens')} captionHidden=${true} rows=${data.items} rowKey=${(k) => k.id} columns=${[
        { key: 'name', label: t('name') },
        { key: 'created_at', label: t('created'), render: (k) => html`<${Time} iso=${k.created_at} lang=${lang} />` },
        { key: 'last_used_at', label: t('last_used'), render: (k) => html`<${Time} iso=${k.last_used_at} lang=${lang} />` },
        { key: 'expires_at', label: t('expires'), render: (k) => (k.expires_at ? html`<${Time} iso=${k.expires_at} lang=${lang} />` : t('never')) },
        { key: 'review_since', label: t('review'), render: (k) => (k.review_since ? html`<${Time} iso=${k.review_since} lang=${lang} />` : '—') },
        { key: 'actions', label: t('actions'), render: (k) => html`<${TokenActions} api=${api} t=${t} token=${k} onDone=${done} />` },
      ]} />
      <p class="muted">${t('remaining', { n: data.remaining })}</p>`}
    <form class="card" onSubmit=${(e) => { e.preventDefault(); setCreated(null); create(); }}>
      <h3>${t('new_token')}</h3>
      <${Field} label=${t('name')} value=${form.name} onInput=${(v) => setForm((f) => ({ ...f, name: v }))} required maxlength="100" />
      <${Field} label=${t('expiry')} hint=${t('expiry_hint')} type="date" value=${form.expiry} onInput=${(v) => setForm((f) => ({ ...f, expiry: v }))} />
      <button type="submit" class="primary" disabled=${busy}>${t('create')}</button>
      <${ErrorBanner} error=${createError} />
      ${created ? html`<${Notice} kind="success"><p>${t('token_once')}</p><p><code class="secret" data-testid="new-token">${created.token}</code></p></${Notice}>` : null}
    </form>
  </section>`;
}

function EventTypes({ t, chosen, onToggle }) {
  const id = useId('events');
  return html`<fieldset aria-describedby=${id}>
    <legend>${t('events')}</legend>
    <p id=${id} class="muted">${SPEC_EVENTS.join(', ')}: ${t('always')}</p>
    ${OPT_IN_EVENTS.map((type) => html`<div><label><input type="checkbox" checked=${chosen.includes(type)} onChange=${() => onToggle(type)} /> <code>${type}</code></label></div>`)}
  </fieldset>`;
}

function Webhook({ api, t, lang }) {
  const { data, error, refresh } = usePoll(({ background }) => api.get('/subscriptions/config/developer', undefined, { background }), { intervalMs: 30_000 });
  const [edit, setEdit] = useState(null);
  const [notice, setNotice] = useState(null);
  const current = data?.config;
  const form = edit ?? { url: current?.webhook_url ?? '', secret: '', events: (current?.event_types ?? []).filter((e) => OPT_IN_EVENTS.includes(e)) };
  const set = (patch) => { setEdit({ ...form, ...patch }); setNotice(null); };
  const [save, busy, saveError] = useAction(async () => {
    const config = { event_types: form.events };
    if (form.url.trim() !== (current?.webhook_url ?? '')) config.webhook_url = form.url.trim();
    if (form.secret !== '') config.webhook_secret = form.secret;
    await api.put('/subscriptions/config', { service_code: 'developer', config }, { stepUp: true });
    setEdit(null);
    setNotice(t('saved'));
    refresh();
  });
  const [test, testing, testError] = useAction(async () => {
    const r = await api.post('/webhooks/debug/test', {});
    setNotice(t('test_done', { url: r.url, result: r.delivered ? t('delivered') : `${t('not_delivered')} (${r.http_status ?? r.error})` }));
  });
  if (data === undefined) return html`<section aria-labelledby="webhook-title"><h2 id="webhook-title">${t('webhook')}</h2>${error ? html`<${ErrorBanner} error=${error} />` : html`<${Loading} t=${t} />`}</section>`;
  const review = data.webhook ?? {};
  return html`<section aria-labelledby="webhook-title">
    <h2 id="webhook-title">${t('webhook')}</h2>
    ${data.status !== 'active' ? html`<p class="muted">${t('no_subscription')}</p>` : null}
    <dl class="card">
      <dt>${t('review_state')}</dt><dd data-testid="webhook-review">${t(`review_${review.status ?? 'unconfigured'}`)}</dd>
      ${review.url ? html`<dt>${t('approved_url')}</dt><dd><code>${review.url}</code></dd>` : null}
      ${review.pending_url ? html`<dt>${t('pending_url')}</dt><dd><code>${review.pending_url}</code> <${Time} iso=${review.pending_since} lang=${lang} /></dd>` : null}
      ${review.review_note ? html`<dt>${t('review_note')}</dt><dd>${review.review_note}</dd>` : null}
    </dl>
    ${notice ? html`<${Notice} kind="success">${notice}</${Notice}>` : null}
    <form class="card" onSubmit=${(e) => { e.preventDefault(); save(); }}>
      <${Field} label=${t('webhook_url')} type="url" value=${form.url} onInput=${(v) => set({ url: v })} placeholder="https://" spellcheck="false" />
      <${Field} label=${t('webhook_secret')} hint=${`${t('secret_hint')} ${current.webhook_secret_set ? t('secret_set') : t('secret_unset')}`}
        type="password" autocomplete="new-password" value=${form.secret} onInput=${(v) => set({ secret: v })} />
      <${EventTypes} t=${t} chosen=${form.events} onToggle=${(type) => set({ events: form.events.includes(type) ? form.events.filter((e) => e !== type) : [...form.events, type] })} />
      <div class="actions">
        <button type="submit" class="primary" disabled=${busy}>${t('save')}</button>
        <button type="button" disabled=${testing || review.status !== 'verified'} onClick=${() => test()}>${t('test')}</button>
      </div>
      <${ErrorBanner} error=${saveError ?? testError} />
    </form>
  </section>`;
}

// The result is shown by the list (onDone), not in the row: a redelivered DEAD row leaves a list filtered on DEAD.
function Redeliver({ api, t, delivery, onDone }) {
  const [send, busy, error] = useAction(async () => {
    const r = await api.post(`/webhooks/deliveries/${encodeURIComponent(delivery.delivery_id)}/redeliver`, {});
    onDone(t('redelivered', { result: r.delivered ? t('delivered') : t('not_delivered') }));
  });
  return html`<div>
    <button type="button" disabled=${busy} onClick=${() => send()} aria-label=${`${t('redeliver')} ${delivery.event_type} ${delivery.delivery_id}`}>${t('redeliver')}</button>
    <${ErrorBanner} error=${error} />
  </div>`;
}

function Deliveries({ api, t, lang }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const { data, error, refresh } = usePoll(({ background }) => api.get('/webhooks/deliveries', { page, per_page: 20, status }, { background }), { deps: [page, status] });
  const [notice, setNotice] = useState(null);
  const redelivered = (text) => { setNotice(text); refresh(); };
  return html`<section aria-labelledby="deliveries-title">
    <h2 id="deliveries-title">${t('deliveries')}</h2>
    ${notice ? html`<${Notice}>${notice}</${Notice}>` : null}
    <${Field} as="select" label=${t('filter_status')} value=${status} onInput=${(v) => { setPage(1); setStatus(v); }}
      options=${[{ value: '', label: t('all') }, ...Object.entries(DELIVERY).map(([value, label]) => ({ value, label }))]} />
    <${ErrorBanner} error=${error} />
    ${data === undefined ? (error ? null : html`<${Loading} t=${t} />`) : html`
      <${Table} t=${t} caption=${t('deliveries')} captionHidden=${true} rows=${data.items} rowKey=${(d) => d.delivery_id} columns=${[
        { key: 'event_type', label: t('event'), render: (d) => html`<code>${d.event_type}</code>` },
        { key: 'status', label: t('status'), render: (d) => DELIVERY[d.status] ?? d.status },
        { key: 'created_at', label: t('created'), render: (d) => html`<${Time} iso=${d.created_at} lang=${lang} />` },
        { key: 'attempts', label: t('attempts'), numeric: true, render: (d) => d.attempts.length },
        { key: 'last', label: t('last_attempt'), render: (d) => { const a = d.attempts.at(-1); return a ? `${a.http_status ?? ''} ${a.error ?? ''}`.trim() : '—'; } },
        { key: 'actions', label: t('actions'), render: (d) => (d.status === 5 || d.status === 3 ? html`<${Redeliver} api=${api} t=${t} delivery=${d} onDone=${redelivered} />` : '') },
      ]} />
      <${Pager} page=${page} pages=${data.pagination?.pages} onPage=${setPage} t=${t} />`}
  </section>`;
}

function Developers(props) {
  return html`<${Tokens} ...${props} /><${Webhook} ...${props} /><${Deliveries} ...${props} />`;
}

export default { id: 'developers', path: '/developers', roles: ADMIN_ROLES, title: { en: 'Developers', zh: '开发者' }, messages, Screen: Developers };
