// Withdrawals (issue #38 item 1): the account's withdrawals (GET /commands?type=2) and those awaiting people
// (GET /approvals), live by polling; a new one (POST /transfers) with step-up, its code bound to the withdrawal's
// Idempotency-Key (decision 215: the key is kept while the same withdrawal is retried); approving and denying another
// member's withdrawal (POST /commands/{no}/approve|deny, step-up); cancelling (POST /commands/{no}/cancel); a detail
// (GET /commands/{no}). Every action is the public API's; what a role may not do is not offered.
import { html, useState } from '../lib/html.js';
import { newIdempotencyKey } from '../lib/api.js';
import { Amount, ErrorBanner, Field, Loading, Notice, Pager, Table, Time, useAction } from '../lib/components.js';
import { parseAmount } from '../lib/format.js';
import { usePoll } from '../lib/poll.js';
import { ALL_ROLES, statusName, walletIso } from './screen-common.js';

const CREATE_ROLES = ['owner', 'operator'];
const DECIDE_ROLES = ['owner', 'admin', 'approver'];
const CANCEL_ROLES = ['owner', 'admin', 'operator'];
const WITHDRAWAL = 2;
const ASSETS = ['TRX', 'USDT'];

const messages = {
  en: {
    awaiting: 'Awaiting approval', awaiting_none: 'No withdrawal awaits an approval.', list: 'Withdrawals', new: 'New withdrawal',
    from: 'From address', to: 'To address', asset: 'Asset', amount: 'Amount', amount_hint: 'In units of the asset, e.g. 1.5',
    amount_bad: 'Enter an amount in units with at most 6 decimals.', submit: 'Request withdrawal', requested: 'Withdrawal {no} requested.',
    command: 'Withdrawal', created: 'Created', status: 'Status', approval: 'Approval', error: 'Error', actions: 'Actions',
    approve: 'Approve', deny: 'Deny', cancel_w: 'Cancel withdrawal', approved: 'Withdrawal {no} approved.', denied: 'Withdrawal {no} denied.',
    cancelled: 'Withdrawal {no} cancelled.', own: 'Requested by you: another member decides.', requested_by: 'Requested by',
    detail: 'Withdrawal {no}', back: 'Back to the withdrawals', txid: 'Transaction', finished: 'Finished', started: 'Started',
    no_addresses: 'No address yet.', none: 'No withdrawals yet.', filter_status: 'Status filter', all: 'All',
    state_awaiting: 'awaiting', state_approved: 'approved', state_denied: 'denied', state_expired: 'expired', state_cancelled: 'cancelled',
    PENDING: 'pending', RUNNING: 'running', SUCCESS: 'paid', FAILED: 'failed', REJECTED: 'rejected', CANCELLED: 'cancelled',
    main: 'main', sub: 'sub-address', expires: 'Decide by',
  },
  zh: {
    awaiting: '待审批', awaiting_none: '没有待审批的提现。', list: '提现记录', new: '新建提现',
    from: '转出地址', to: '收款地址', asset: '资产', amount: '金额', amount_hint: '以资产单位填写，例如 1.5',
    amount_bad: '请输入最多 6 位小数的金额。', submit: '申请提现', requested: '提现 {no} 已提交。',
    command: '提现', created: '创建时间', status: '状态', approval: '审批', error: '错误', actions: '操作',
    approve: '批准', deny: '拒绝', cancel_w: '取消提现', approved: '提现 {no} 已批准。', denied: '提现 {no} 已拒绝。',
    cancelled: '提现 {no} 已取消。', own: '由您发起：需由其他成员审批。', requested_by: '发起人',
    detail: '提现 {no}', back: '返回提现列表', txid: '交易', finished: '完成时间', started: '开始时间',
    no_addresses: '暂无地址。', none: '暂无提现。', filter_status: '状态筛选', all: '全部',
    state_awaiting: '待审批', state_approved: '已批准', state_denied: '已拒绝', state_expired: '已过期', state_cancelled: '已取消',
    PENDING: '待处理', RUNNING: '处理中', SUCCESS: '已支付', FAILED: '失败', REJECTED: '已拒绝', CANCELLED: '已取消',
    main: '主地址', sub: '子地址', expires: '审批截止',
  },
};

/** The signed-in member's own user id: the owner's is the account's; a member's is found by e-mail in GET /members. */
async function ownUserId(api, session) {
  if (session.role === 'owner') return session.user_id;
  try {
    const members = await api.get('/members');
    return members.items.find((m) => m.email === session.email)?.user_id ?? null;
  } catch {
    return null;
  }
}

function NewWithdrawal({ api, t, onDone }) {
  const [form, setForm] = useState({ from: '', to: '', asset: 'TRX', amount: '' });
  const [amountError, setAmountError] = useState(null);
  const [done, setDone] = useState(null);
  // One key per withdrawal: kept while the same body is retried (a step-up retry, a network failure), new otherwise.
  const [keyed, setKeyed] = useState(null);
  const { data: wallets, error: walletsError } = usePoll(() => api.get('/wallets', { per_page: 100 }), { intervalMs: 60_000 });
  const set = (name) => (value) => { setForm((f) => ({ ...f, [name]: value })); setDone(null); };
  const [submit, busy, error] = useAction(async () => {
    const amount = parseAmount(form.amount, form.asset);
    if (amount === null || amount === '0') { setAmountError(t('amount_bad')); return; }
    setAmountError(null);
    const from = form.from || wallets?.items?.[0]?.address || '';
    const body = { from_address: from, to_address: form.to.trim(), asset_symbol: form.asset, amount };
    const text = JSON.stringify(body);
    const key = keyed?.body === text ? keyed.key : newIdempotencyKey();
    setKeyed({ body: text, key });
    const accepted = await api.post('/transfers', body, { stepUp: true, idempotencyKey: key });
    setKeyed(null);
    setDone(accepted.command_no);
    setForm((f) => ({ ...f, to: '', amount: '' }));
    onDone();
  });
  const options = (wallets?.items ?? []).map((w) => ({ value: w.address, label: `${w.address} (${w.address_type === 1 ? t('main') : (w.address_label ?? t('sub'))})` }));
  return html`<section class="card" aria-labelledby="new-title">
    <h2 id="new-title">${t('new')}</h2>
    <${ErrorBanner} error=${walletsError ?? error} />
    ${done ? html`<${Notice} kind="success">${t('requested', { no: done })}</${Notice}>` : null}
    ${wallets === undefined ? (walletsError ? null : html`<${Loading} t=${t} />`) : html`<form onSubmit=${(e) => { e.preventDefault(); submit(); }}>
      <${Field} as="select" label=${t('from')} value=${form.from || options[0]?.value} onInput=${set('from')} options=${options} />
      <${Field} label=${t('to')} value=${form.to} onInput=${set('to')} required autocomplete="off" spellcheck="false" />
      <${Field} as="select" label=${t('asset')} value=${form.asset} onInput=${set('asset')} options=${ASSETS.map((a) => ({ value: a, label: a }))} />
      <${Field} label=${t('amount')} hint=${t('amount_hint')} error=${amountError} value=${form.amount} onInput=${set('amount')} inputmode="decimal" required />
      <div class="actions"><button type="submit" class="primary" disabled=${busy}>${busy ? t('loading') : t('submit')}</button></div>
    </form>`}
  </section>`;
}

function Decide({ api, t, command, mine, onDone }) {
  const [act, busy, error] = useAction(async (what) => {
    await api.post(`/commands/${encodeURIComponent(command.command_no)}/${what}`, {}, { stepUp: true });
    onDone(t(what === 'approve' ? 'approved' : 'denied', { no: command.command_no }));
  });
  if (mine) return html`<span class="muted">${t('own')}</span>`;
  return html`<div>
    <div class="actions">
      <button type="button" class="primary" disabled=${busy} onClick=${() => act('approve')} aria-label=${`${t('approve')} ${command.command_no}`}>${t('approve')}</button>
      <button type="button" disabled=${busy} onClick=${() => act('deny')} aria-label=${`${t('deny')} ${command.command_no}`}>${t('deny')}</button>
    </div>
    <${ErrorBanner} error=${error} />
  </div>`;
}

function CancelButton({ api, t, command, onDone }) {
  const [cancel, busy, error] = useAction(async () => {
    await api.post(`/commands/${encodeURIComponent(command.command_no)}/cancel`, {});
    onDone(t('cancelled', { no: command.command_no }));
  });
  return html`<div>
    <button type="button" disabled=${busy} onClick=${() => cancel()} aria-label=${`${t('cancel_w')} ${command.command_no}`}>${t('cancel_w')}</button>
    <${ErrorBanner} error=${error} />
  </div>`;
}

function approvalText(t, approval) {
  return approval ? t(`state_${approval.state}`) : '—';
}

function Awaiting({ api, t, lang, session, items, me, refresh }) {
  const decider = DECIDE_ROLES.includes(session.role);
  const [notice, setNotice] = useState(null);
  const decided = (text) => { setNotice(text); refresh(); };
  return html`<section aria-labelledby="awaiting-title">
    <h2 id="awaiting-title">${t('awaiting')}</h2>
    ${notice ? html`<${Notice} kind="success">${notice}</${Notice}>` : null}
    ${items.length === 0 ? html`<p class="muted">${t('awaiting_none')}</p>` : html`<${Table} t=${t} caption=${t('awaiting')} captionHidden=${true} rows=${items} rowKey=${(c) => c.command_no} columns=${[
      { key: 'command_no', label: t('command'), render: (c) => html`<a href=${`#/withdrawals/${encodeURIComponent(c.command_no)}`}><code>${c.command_no}</code></a>` },
      { key: 'amount', label: t('amount'), numeric: true, render: (c) => html`<${Amount} value=${c.amount} asset=${c.asset_symbol} lang=${lang} />` },
      { key: 'to_address', label: t('to'), render: (c) => html`<code>${c.to_address}</code>` },
      { key: 'expires', label: t('expires'), render: (c) => html`<${Time} iso=${walletIso(c.approval?.expires_at)} lang=${lang} />` },
      ...(decider ? [{ key: 'actions', label: t('actions'), render: (c) => html`<${Decide} api=${api} t=${t} command=${c} mine=${me !== null && c.approval?.requested_by === me} onDone=${decided} />` }] : []),
    ]} />`}
  </section>`;
}

function List({ api, t, lang, session, route }) {
  const page = Number(route.query.get('page') ?? '1') || 1;
  const status = route.query.get('status') ?? '';
  const { data, error, refresh } = usePoll(async ({ background }) => {
    const [list, awaiting] = await Promise.all([
      api.get('/commands', { type: WITHDRAWAL, status, page, per_page: 20 }, { background }),
      api.get('/approvals', undefined, { background }),
    ]);
    return { list, awaiting: awaiting.items };
  }, { deps: [page, status] });
  const { data: me } = usePoll(() => ownUserId(api, session), { intervalMs: 600_000 });
  const goTo = (next) => route.go(`/withdrawals?${new URLSearchParams({ ...(status ? { status } : {}), page: String(next) })}`);
  const canCancel = CANCEL_ROLES.includes(session.role);
  const [notice, setNotice] = useState(null);
  const cancelled = (text) => { setNotice(text); refresh(); };
  return html`
    ${CREATE_ROLES.includes(session.role) ? html`<${NewWithdrawal} api=${api} t=${t} onDone=${refresh} />` : null}
    ${data === undefined ? (error ? html`<${ErrorBanner} error=${error} />` : html`<${Loading} t=${t} />`) : html`
      <${ErrorBanner} error=${error} />
      <${Awaiting} api=${api} t=${t} lang=${lang} session=${session} items=${data.awaiting} me=${me ?? null} refresh=${refresh} />
      <section aria-labelledby="list-title">
        <h2 id="list-title">${t('list')}</h2>
        ${notice ? html`<${Notice} kind="success">${notice}</${Notice}>` : null}
        <${Field} as="select" label=${t('filter_status')} value=${status}
          onInput=${(v) => route.go(`/withdrawals${v ? `?status=${v}` : ''}`)}
          options=${[{ value: '', label: t('all') }, ...[1, 2, 3, 4, 5, 6].map((s) => ({ value: String(s), label: t(statusName(s)) }))]} />
        <${Table} t=${t} caption=${t('list')} captionHidden=${true} rows=${data.list.items} rowKey=${(c) => c.command_no} columns=${[
          { key: 'command_no', label: t('command'), render: (c) => html`<a href=${`#/withdrawals/${encodeURIComponent(c.command_no)}`}><code>${c.command_no}</code></a>` },
          { key: 'created_at', label: t('created'), render: (c) => html`<${Time} iso=${walletIso(c.created_at)} lang=${lang} />` },
          { key: 'status', label: t('status'), render: (c) => html`<span class="status" data-status=${statusName(c.status)}>${t(statusName(c.status))}</span>` },
          { key: 'approval', label: t('approval'), render: (c) => approvalText(t, c.approval) },
          { key: 'error', label: t('error'), render: (c) => c.last_error ?? c.error_code ?? '' },
          ...(canCancel ? [{ key: 'actions', label: t('actions'), render: (c) => (c.status <= 2 ? html`<${CancelButton} api=${api} t=${t} command=${c} onDone=${cancelled} />` : '') }] : []),
        ]} />
        <${Pager} page=${page} pages=${data.list.pagination?.pages} onPage=${goTo} t=${t} />
      </section>`}`;
}

function Detail({ api, t, lang, no }) {
  const { data, error } = usePoll(({ background }) => api.get(`/commands/${encodeURIComponent(no)}`, undefined, { background }), { deps: [no] });
  const rows = data === undefined ? [] : [
    [t('status'), html`<span class="status">${t(statusName(data.status))}</span>`],
    [t('amount'), data.amount === undefined ? '—' : html`<${Amount} value=${data.amount} asset=${data.asset_symbol} lang=${lang} />`],
    [t('to'), html`<code>${data.to_address ?? '—'}</code>`],
    [t('txid'), data.txid ? html`<code>${data.txid}</code>` : '—'],
    [t('approval'), approvalText(t, data.approval)],
    [t('started'), html`<${Time} iso=${walletIso(data.started_at)} lang=${lang} />`],
    [t('finished'), html`<${Time} iso=${walletIso(data.finished_at)} lang=${lang} />`],
    [t('error'), data.last_error ?? data.error_code ?? '—'],
  ];
  return html`<section aria-labelledby="detail-title">
    <p><a href="#/withdrawals">${t('back')}</a></p>
    <h2 id="detail-title">${t('detail', { no })}</h2>
    <${ErrorBanner} error=${error} />
    ${data === undefined ? (error ? null : html`<${Loading} t=${t} />`) : html`<dl class="card">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`}
  </section>`;
}

function Withdrawals(props) {
  const no = props.route.rest[0];
  return no === undefined ? html`<${List} ...${props} />` : html`<${Detail} ...${props} no=${no} />`;
}

export default {
  id: 'withdrawals', path: '/withdrawals', roles: ALL_ROLES, title: { en: 'Withdrawals', zh: '提现' }, messages, Screen: Withdrawals,
};
