// Collections (issue #38 item 1): the sweeps of sub-addresses to the main address (GET /collections with its status and
// address filters, paged) with what each cost (GET /collections/{taskNo}/costs, read from the receipts), and one task's
// page with the cost's parts, its transactions and the plan's priced energy options. A final cost no longer changes and
// is read once; the rest refresh by polling.
import { html, useRef, useState } from '../lib/html.js';
import { Amount, EmptyState, ErrorBanner, Field, Loading, Pager, Table, Time } from '../lib/components.js';
import { usePoll } from '../lib/poll.js';
import { ALL_ROLES, Filters, isoOf, Mono, pageOf, queryOf, useFocusWhenReady, withShared } from './money-parts.js';

const PER_PAGE = 10;
/** The list and the costs not final yet: up to 11 reads a round, every 10 s. */
const POLL_MS = 10_000;
const STATUS = { 1: 'PENDING', 2: 'FUNDING_TRX', 6: 'COLLECTING', 8: 'RECOVER_TRX', 11: 'DONE', 12: 'FAILED', 15: 'UNDELEGATING_ENERGY', 16: 'ACQUIRING_ENERGY', 17: 'WAIT_ENERGY_READY' };
const FILTER_STATUSES = [1, 2, 16, 17, 6, 15, 8, 11, 12];

const messages = withShared({
  en: {
    list_label: 'Filter collections', collections: 'Collections', task: 'Task', swept: 'Swept', cost: 'Cost', energy: 'Energy', started: 'Started',
    finished: 'Finished', sweep_tx: 'Sweep transaction', address_hint: 'A sub-address, whole.', none_found: 'No collection matches.',
    final: 'final', so_far: 'so far', path_self: 'own stake', path_rental: 'rented', path_burn: 'burned TRX', path_none: 'not needed', path_null: '—',
    cost_title: 'Cost', part: 'Part', bandwidth: 'Bandwidth burned', energy_burned: 'Energy burned', activation: 'Account activation',
    rental: 'Energy rental', total: 'Total spent', lent: 'TRX lent by the main address (moved, not spent)', returned: 'TRX sent back (moved, not spent)',
    transactions: 'Transactions counted', estimate: 'Plan', option: 'Energy source', provider: 'Provider', refusal: 'Why not taken', taken: 'could be taken',
    error: 'Last error', command: 'Command', estimate_total: 'Expected cost: {amount}', details: 'Collection task',
  },
  zh: {
    list_label: '筛选归集', collections: '归集任务', task: '任务', swept: '归集金额', cost: '费用', energy: '能量', started: '开始',
    finished: '结束', sweep_tx: '归集交易', address_hint: '子地址（完整）。', none_found: '没有匹配的归集。',
    final: '最终', so_far: '目前', path_self: '自有质押', path_rental: '租赁', path_burn: '燃烧 TRX', path_none: '无需', path_null: '—',
    cost_title: '费用', part: '项目', bandwidth: '带宽燃烧', energy_burned: '能量燃烧', activation: '账户激活',
    rental: '能量租赁', total: '实际花费', lent: '主地址借出的 TRX（转移，不计花费）', returned: '退回的 TRX（转移，不计花费）',
    transactions: '计入的交易', estimate: '计划', option: '能量来源', provider: '服务商', refusal: '未采用原因', taken: '可采用',
    error: '最近错误', command: '指令', estimate_total: '预计费用：{amount}', details: '归集任务',
  },
});

const pathText = (t, path) => t(`path_${path ?? 'null'}`);

/** A cost in TRX (SUN integer string), with "so far" while it can still change. */
function CostCell({ cost, t, lang }) {
  if (cost === undefined) return '…';
  if (cost.error) return html`<span class="field-error">${cost.error.message}</span>`;
  return html`<${Amount} value=${cost.value.cost.total_sun} asset="TRX" lang=${lang} /> <span class="muted">(${cost.value.final ? t('final') : t('so_far')})</span>`;
}

function CollectionList({ api, t, route, lang }) {
  const address = route.query.get('address') ?? '';
  const status = FILTER_STATUSES.map(String).includes(route.query.get('status')) ? route.query.get('status') : '';
  const page = pageOf(route.query);
  const [form, setForm] = useState({ address, status });
  const set = (key) => (value) => setForm((f) => ({ ...f, [key]: value }));
  // Final costs never change: kept here, read once.
  const finals = useRef(new Map());
  const { data, error } = usePoll(async ({ background }) => {
    const list = await api.get('/collections', { address: address || undefined, status: status || undefined, page, per_page: PER_PAGE }, { background });
    await Promise.all(list.items.filter((c) => !finals.current.has(c.task_no)).map(async (c) => {
      try {
        const cost = await api.get(`/collections/${encodeURIComponent(c.task_no)}/costs`, undefined, { background });
        if (cost.final) finals.current.set(c.task_no, { value: cost });
        else c.cost = { value: cost };
      } catch (e) {
        c.cost = { error: e };
      }
    }));
    return list;
  }, { intervalMs: POLL_MS, deps: [address, status, page] });
  const goTo = (values) => route.go(`/collections${queryOf(values)}`);
  const costOf = (c) => finals.current.get(c.task_no) ?? c.cost;
  const columns = [
    { key: 'task_no', label: t('task'), render: (c) => html`<a href=${`#/collections/${encodeURIComponent(c.task_no)}`}>${c.task_no}</a>` },
    { key: 'status', label: t('status'), render: (c) => STATUS[c.status] ?? String(c.status) },
    { key: 'swept', label: t('swept'), numeric: true, render: (c) => (c.swept_amount === null ? '—' : html`<${Amount} value=${c.swept_amount} asset=${c.asset_symbol} lang=${lang} />`) },
    { key: 'cost', label: t('cost'), numeric: true, render: (c) => html`<${CostCell} cost=${costOf(c)} t=${t} lang=${lang} />` },
    { key: 'energy', label: t('energy'), render: (c) => (costOf(c)?.value ? pathText(t, costOf(c).value.energy_path) : '—') },
    { key: 'address', label: t('address'), render: (c) => html`<a href=${`#/addresses/${encodeURIComponent(c.address)}`}><${Mono} value=${c.address} /></a>` },
    { key: 'started_at', label: t('started'), render: (c) => html`<${Time} iso=${isoOf(c.started_at)} lang=${lang} />` },
    { key: 'finished_at', label: t('finished'), render: (c) => html`<${Time} iso=${isoOf(c.finished_at)} lang=${lang} />` },
    { key: 'sweep_tx_hash', label: t('sweep_tx'), render: (c) => html`<${Mono} value=${c.sweep_tx_hash} />` },
  ];
  const filtered = address || status;
  return html`
    <${Filters} label=${t('list_label')} t=${t} onSubmit=${() => goTo({ address: form.address.trim(), status: form.status })}
      onClear=${filtered ? () => { setForm({ address: '', status: '' }); goTo({}); } : null}>
      <${Field} label=${t('address')} hint=${t('address_hint')} value=${form.address} onInput=${set('address')} autocomplete="off" spellcheck="false" maxlength="128" />
      <${Field} label=${t('status')} as="select" value=${form.status} onInput=${set('status')}
        options=${[{ value: '', label: t('all') }, ...FILTER_STATUSES.map((s) => ({ value: String(s), label: STATUS[s] }))]} />
    </${Filters}>
    <${ErrorBanner} error=${error} />
    ${data === undefined ? (error ? null : html`<${Loading} t=${t} />`) : html`
      ${data.items.length === 0 ? html`<${EmptyState}>${filtered ? t('none_found') : t('empty')}</${EmptyState}>`
        : html`<${Table} t=${t} caption=${t('collections')} captionHidden=${true} rows=${data.items} rowKey=${(c) => c.task_no} columns=${columns} />`}
      <${Pager} t=${t} page=${page} pages=${data.pagination.pages} onPage=${(p) => goTo({ address, status, page: p })} />
      <p class="muted">${t('refresh_note')}</p>`}`;
}

function CollectionDetail({ api, t, lang, taskNo }) {
  const { data, error } = usePoll(async ({ background }) => {
    const [task, cost] = await Promise.all([
      api.get(`/collections/${encodeURIComponent(taskNo)}`, undefined, { background }),
      api.get(`/collections/${encodeURIComponent(taskNo)}/costs`, undefined, { background }).then((value) => ({ value }), (e) => ({ error: e })),
    ]);
    return { task, cost };
  }, { intervalMs: POLL_MS, deps: [taskNo] });
  const heading = useFocusWhenReady(data !== undefined);
  const back = html`<p><a href="#/collections">${t('back')}</a></p>`;
  if (data === undefined) return html`${back}${error ? html`<${ErrorBanner} error=${error} />` : html`<${Loading} t=${t} />`}`;
  const { task, cost } = data;
  const trx = (v) => html`<${Amount} value=${v} asset="TRX" lang=${lang} />`;
  const c = cost.value;
  return html`${back}
    <${ErrorBanner} error=${error} />
    <section class="part" aria-labelledby="task-title">
      <h2 id="task-title" tabindex="-1" ref=${heading}>${t('details')} ${task.task_no}</h2>
      <dl class="facts">
        <dt>${t('status')}</dt><dd><strong>${STATUS[task.status] ?? task.status}</strong></dd>
        ${c ? html`<dt>${t('asset')}</dt><dd>${c.asset_symbol}</dd><dt>${t('energy')}</dt><dd>${pathText(t, c.energy_path)}${c.provider ? ` (${c.provider})` : ''}</dd>` : null}
        <dt>${t('command')}</dt><dd><${Mono} value=${task.command_no} /></dd>
        <dt>${t('started')}</dt><dd><${Time} iso=${isoOf(task.started_at)} lang=${lang} /></dd>
        <dt>${t('finished')}</dt><dd><${Time} iso=${isoOf(task.finished_at)} lang=${lang} /></dd>
        ${task.last_error ? html`<dt>${t('error')}</dt><dd>${task.error_code ? html`<code>${task.error_code}</code> ` : null}${task.last_error}</dd>` : null}
      </dl>
    </section>
    <section class="part" aria-labelledby="cost-title">
      <h2 id="cost-title">${t('cost_title')} ${c ? html`<span class="muted">(${c.final ? t('final') : t('so_far')})</span>` : null}</h2>
      <${ErrorBanner} error=${cost.error} />
      ${c ? html`
        <${Table} t=${t} caption=${t('cost_title')} captionHidden=${true} rowKey=${(r) => r.key} rows=${[
          { key: 'bandwidth_burned_sun', label: t('bandwidth') }, { key: 'energy_burned_sun', label: t('energy_burned') },
          { key: 'activation_sun', label: t('activation') }, { key: 'rental_sun', label: t('rental') }, { key: 'total_sun', label: t('total') },
          { key: 'lent_sun', label: t('lent') }, { key: 'returned_sun', label: t('returned') },
        ]} columns=${[
          { key: 'label', label: t('part') },
          { key: 'value', label: t('amount'), numeric: true, render: (r) => trx(c.cost[r.key]) },
        ]} />
        ${c.cost.txids.length > 0 ? html`<h3>${t('transactions')}</h3><ul>${c.cost.txids.map((id) => html`<li><${Mono} value=${id} /></li>`)}</ul>` : null}
        ${c.estimate ? html`<h3>${t('estimate')}</h3>
          <p>${t('estimate_total', { amount: '' })}${trx(c.estimate.total_sun)}</p>
          <${Table} t=${t} caption=${t('estimate')} captionHidden=${true} rows=${c.estimate.options} columns=${[
            { key: 'path', label: t('option'), render: (o) => pathText(t, o.path) },
            { key: 'provider', label: t('provider'), render: (o) => o.provider ?? '—' },
            { key: 'cost_sun', label: t('cost'), numeric: true, render: (o) => trx(o.cost_sun) },
            { key: 'refusal', label: t('refusal'), render: (o) => o.refusal ?? t('taken') },
          ]} />` : null}` : null}
    </section>`;
}

function Collections(props) {
  const [taskNo] = props.route.rest;
  return taskNo === undefined ? html`<${CollectionList} ...${props} />` : html`<${CollectionDetail} ...${props} taskNo=${taskNo} />`;
}

export default {
  id: 'collections', path: '/collections', roles: ALL_ROLES, title: { en: 'Collections', zh: '归集' }, messages, Screen: Collections,
};
