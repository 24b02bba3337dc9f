// Dashboard (issue #38 item 1): balances per asset from the books, payment requests of today / 7 / 30 days, a chart of
// daily volume, and what needs attention. Each panel reads one public route; a panel whose route refuses the caller
// (no API access, a role) shows the API's message and the others still work. Refreshed by polling while visible.
import { html, useState } from '../lib/html.js';
import { Amount, ErrorBanner, Loading, Table, useAction } from '../lib/components.js';
import { BarChart } from '../lib/chart.js';
import { decimalsOf, formatAmount, localDay, startOfLocalDay, sumAmounts } from '../lib/format.js';
import { usePoll } from '../lib/poll.js';

const ALL = ['owner', 'admin', 'approver', 'operator', 'viewer'];
/** Reads a dashboard polls each round: 6 + up to MAX_PAGES; every 15 s that stays far below 60 GETs a minute. */
const DASHBOARD_POLL_MS = 15_000;
const PER_PAGE = 100;
const MAX_PAGES = 5;
const PAID = new Set(['paid', 'overpaid', 'paid_late']);
/** The DEAD delivery status (spec: 5). */
const DEAD = 5;
/** The FAILED collection task status (spec: 12): a forward that failed for good is one of these. */
const FAILED = 12;

const messages = {
  en: {
    balances: 'Balances', balances_by_address: 'Balances by address', address: 'Address', asset: 'Asset', balance: 'Balance',
    total: 'Total', no_balances: 'No balances yet.', payments: 'Payment requests', today: 'Today', last_7: 'Last 7 days',
    last_30: 'Last 30 days', created: '{n} created', paid: '{n} paid', received: 'Received', volume: 'Daily volume received, last 30 days (by the day the request was made)',
    attention: 'Needs attention', approvals: 'Withdrawals awaiting approval: {n}', changes: 'Pending policy changes: {n}',
    dead: 'Webhook deliveries DEAD: {n}', forwards: 'Paid requests whose forward waits: {n}', failed: 'Collections and forwards FAILED: {n}', nothing: 'Nothing needs attention.',
    partial: 'Counted from the newest {n} requests.', day: 'Day', as_table: 'Show as a table',
    plans: 'Start receiving payments', plans_text: 'Payments, addresses and the books need the developer plan (API access) and a sub-address plan. Activate them here; you can switch plans later.',
    plans_owner_only: 'The account owner activates the plans before the money screens open.',
    sub_plan: 'Sub-address plan', plan_starter: 'Starter (10 sub-addresses)', plan_pro: 'Pro (1,000)', plan_unlimited: 'Unlimited',
    activate: 'Activate the plans', activating: 'Activating…',
  },
  zh: {
    balances: '余额', balances_by_address: '各地址余额', address: '地址', asset: '资产', balance: '余额',
    total: '合计', no_balances: '暂无余额。', payments: '收款请求', today: '今天', last_7: '最近 7 天',
    last_30: '最近 30 天', created: '创建 {n} 笔', paid: '已付 {n} 笔', received: '已收', volume: '最近 30 天每日收款额（按请求创建日）',
    attention: '待处理', approvals: '待审批的提现：{n}', changes: '待生效的策略变更：{n}',
    dead: '投递失败（DEAD）的 Webhook：{n}', forwards: '已付款但等待转出的请求：{n}', failed: '失败（FAILED）的归集与转出：{n}', nothing: '没有待处理事项。',
    partial: '按最近 {n} 笔请求统计。', day: '日期', as_table: '以表格查看',
    plans: '开始收款', plans_text: '收款、地址和账簿需要开发者套餐（API 访问）和一个子地址套餐。可在此开通，之后可随时切换。',
    plans_owner_only: '账户所有者开通套餐后，资金相关页面才可使用。',
    sub_plan: '子地址套餐', plan_starter: '入门版（10 个子地址）', plan_pro: '专业版（1,000 个）', plan_unlimited: '不限',
    activate: '开通套餐', activating: '正在开通…',
  },
};

/** Payment requests of the last 30 days, newest pages first, at most MAX_PAGES pages. */
async function recentRequests(api, background) {
  const since = startOfLocalDay(29).getTime();
  const rows = [];
  let truncated = false;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await api.get('/cashier/tokens', { page, per_page: PER_PAGE }, { background });
    rows.push(...answer.data);
    if (page >= answer.meta.last_page) break;
    if (answer.data.every((t) => Date.parse(t.created_at) < since)) break;
    if (page === MAX_PAGES) truncated = true;
  }
  return { items: rows.filter((t) => t.payment && Date.parse(t.created_at) >= since), truncated, scanned: rows.length };
}

/** Reads one panel; its failure is kept beside it rather than failing the dashboard. */
const settle = (promise) => promise.then((value) => ({ value }), (error) => ({ error }));

function Period({ label, requests, t, lang }) {
  const paid = requests.filter((r) => PAID.has(r.payment.status));
  const assets = [...new Set(requests.map((r) => r.payment.asset_symbol))].sort();
  return html`<div class="card">
    <h3>${label}</h3>
    <p class="stat">${t('created', { n: requests.length })}</p>
    <p>${t('paid', { n: paid.length })}</p>
    ${assets.map((asset) => html`<p>${t('received')}: <${Amount} value=${sumAmounts(requests.filter((r) => r.payment.asset_symbol === asset).map((r) => r.payment.received))} asset=${asset} lang=${lang} /></p>`)}
  </div>`;
}

function Payments({ result, t, lang }) {
  if (result.error) return html`<${ErrorBanner} error=${result.error} />`;
  const { items, truncated, scanned } = result.value;
  const since = (days) => startOfLocalDay(days).getTime();
  const within = (days) => items.filter((r) => Date.parse(r.created_at) >= since(days));
  const days = Array.from({ length: 30 }, (_, i) => startOfLocalDay(29 - i));
  const assets = [...new Set(items.map((r) => r.payment.asset_symbol))].sort();
  const series = assets.map((asset) => {
    const raw = days.map((d) => sumAmounts(items.filter((r) => r.payment.asset_symbol === asset && localDay(new Date(r.created_at)) === localDay(d)).map((r) => r.payment.received)));
    // Drawing needs numbers: units as a float for the bars only; the table beside shows the exact text.
    return { label: asset, values: raw.map((v) => Number(v) / 10 ** decimalsOf(asset)), format: (_, i) => formatAmount(raw[i], asset, { lang }) };
  });
  return html`<section aria-labelledby="payments-title">
    <h2 id="payments-title">${t('payments')}</h2>
    <div class="cards">
      <${Period} label=${t('today')} requests=${within(0)} t=${t} lang=${lang} />
      <${Period} label=${t('last_7')} requests=${within(6)} t=${t} lang=${lang} />
      <${Period} label=${t('last_30')} requests=${items} t=${t} lang=${lang} />
    </div>
    ${truncated ? html`<p class="muted">${t('partial', { n: scanned })}</p>` : null}
    ${series.length > 0 ? html`<${BarChart} caption=${t('volume')} tableLabel=${t('as_table')} days=${days} series=${series} dayLabel=${(d) => localDay(d)} />` : null}
  </section>`;
}

function Balances({ result, t, lang }) {
  if (result.error) return html`<${ErrorBanner} error=${result.error} />`;
  const { items, totals } = result.value;
  return html`<section aria-labelledby="balances-title">
    <h2 id="balances-title">${t('balances')}</h2>
    ${totals.length === 0 ? html`<p class="muted">${t('no_balances')}</p>` : html`<div class="cards">
      ${totals.map((row) => html`<div class="card"><h3>${row.asset_symbol}</h3><p class="stat"><${Amount} value=${row.balance} asset=${row.asset_symbol} lang=${lang} /></p></div>`)}
    </div>`}
    ${items.length > 0 ? html`<${Table} t=${t} caption=${t('balances_by_address')} rows=${items} columns=${[
      { key: 'address', label: t('address'), render: (r) => html`<code>${r.address}</code>` },
      { key: 'asset_symbol', label: t('asset') },
      { key: 'balance', label: t('balance'), numeric: true, render: (r) => html`<${Amount} value=${r.balance} asset=${r.asset_symbol} lang=${lang} />` },
    ]} />` : null}
  </section>`;
}

function Attention({ parts, payments, t }) {
  const rows = [];
  const add = (result, key, path, count) => {
    if (result.error) rows.push(html`<li><${ErrorBanner} error=${result.error} /></li>`);
    else if (count(result.value) > 0) rows.push(html`<li><a href=${`#${path}`}>${t(key, { n: count(result.value) })}</a></li>`);
  };
  add(parts.approvals, 'approvals', '/withdrawals', (v) => v.items.length);
  add(parts.changes, 'changes', '/security', (v) => v.items.length);
  add(parts.dead, 'dead', '/developers', (v) => v.pagination?.total ?? v.items.length);
  add(parts.failed, 'failed', `/collections?status=${FAILED}`, (v) => v.pagination?.total ?? v.items.length);
  if (payments.value) {
    const waiting = payments.value.items.filter((r) => r.payment.forward !== undefined).length;
    if (waiting > 0) rows.push(html`<li><a href="#/payments">${t('forwards', { n: waiting })}</a></li>`);
  }
  return html`<section aria-labelledby="attention-title">
    <h2 id="attention-title">${t('attention')}</h2>
    ${rows.length === 0 ? html`<p class="muted">${t('nothing')}</p>` : html`<ul class="attention">${rows}</ul>`}
  </section>`;
}

/**
 * A new account has no API access, so every money screen answers 403 until the plans are on: the owner activates them
 * here through POST /subscriptions/activate (the developer plan, then the chosen sub-address plan), then the shell reads
 * the session again.
 */
function Plans({ api, session, t }) {
  const [plan, setPlan] = useState('starter');
  const [run, busy, error] = useAction(async () => {
    await api.post('/subscriptions/activate', { service_code: 'developer' });
    await api.post('/subscriptions/activate', { service_code: 'sub_address', plan_code: plan });
    location.reload();
  });
  return html`<section aria-labelledby="plans-title" class="card">
    <h2 id="plans-title">${t('plans')}</h2>
    ${session.role !== 'owner' ? html`<p>${t('plans_owner_only')}</p>` : html`
      <p>${t('plans_text')}</p>
      ${error ? html`<${ErrorBanner} error=${error} />` : null}
      <form onSubmit=${(e) => { e.preventDefault(); run(); }}>
        <label for="plan-select">${t('sub_plan')}</label>
        <select id="plan-select" value=${plan} onChange=${(e) => setPlan(e.currentTarget.value)}>
          ${['starter', 'pro', 'unlimited'].map((p) => html`<option value=${p}>${t(`plan_${p}`)}</option>`)}
        </select>
        <div class="actions"><button type="submit" class="primary" disabled=${busy}>${busy ? t('activating') : t('activate')}</button></div>
      </form>`}
  </section>`;
}

function Dashboard({ api, session, t, lang }) {
  if (session.api_access === false) return html`<${Plans} api=${api} session=${session} t=${t} />`;
  return html`<${Overview} api=${api} t=${t} lang=${lang} />`;
}

function Overview({ api, t, lang }) {
  const { data, error } = usePoll(async ({ background }) => {
    const [balances, payments, approvals, changes, dead, failed] = await Promise.all([
      settle(api.get('/ledger/balances', undefined, { background })),
      settle(recentRequests(api, background)),
      settle(api.get('/approvals', undefined, { background })),
      settle(api.get('/policies/changes', undefined, { background })),
      settle(api.get('/webhooks/deliveries', { status: DEAD, page: 1, per_page: 1 }, { background })),
      settle(api.get('/collections', { status: FAILED, page: 1, per_page: 1 }, { background })),
    ]);
    return { balances, payments, approvals, changes, dead, failed };
  }, { intervalMs: DASHBOARD_POLL_MS });
  if (data === undefined) return error ? html`<${ErrorBanner} error=${error} />` : html`<${Loading} t=${t} />`;
  return html`
    <${Attention} parts=${data} payments=${data.payments} t=${t} />
    <${Balances} result=${data.balances} t=${t} lang=${lang} />
    <${Payments} result=${data.payments} t=${t} lang=${lang} />`;
}

export default {
  id: 'dashboard', path: '/dashboard', roles: ALL, title: { en: 'Dashboard', zh: '概览' }, messages, Screen: Dashboard,
};
