// Deposits (issue #38 item 1): GET /deposits with its filters (address, asset, status), newest first, paged; each with
// its state (pending at the head, confirmed once solidified, reverted by a reorg), its block and txid, and a link to its
// address. Filters live in the address (#/deposits?address=…), so the Addresses screen links here. Refreshed by polling.
import { html, useState } from '../lib/html.js';
import { Amount, EmptyState, ErrorBanner, Field, Loading, Pager, Table, Time } from '../lib/components.js';
import { usePoll } from '../lib/poll.js';
import { ALL_ROLES, ASSETS, Filters, isoOf, Mono, pageOf, queryOf, withShared } from './money-parts.js';

const STATUSES = ['pending', 'confirmed', 'reverted'];
const PER_PAGE = 20;

const messages = withShared({
  en: {
    list_label: 'Filter deposits', deposits: 'Deposits', from: 'From', block: 'Block', detected: 'Seen', confirmed_at: 'Confirmed',
    dst_pending: 'pending (seen, not yet solidified)', dst_confirmed: 'confirmed', dst_reverted: 'reverted (dropped by a reorganisation)',
    auto_collect: 'Automatic collection', ac_pending: 'waiting', ac_started: 'started', ac_skipped: 'skipped', none_found: 'No deposit matches.',
    address_hint: 'One of your addresses, whole.',
  },
  zh: {
    list_label: '筛选充值', deposits: '充值记录', from: '付款方', block: '区块', detected: '发现时间', confirmed_at: '确认时间',
    dst_pending: '待确认（已发现，尚未固化）', dst_confirmed: '已确认', dst_reverted: '已撤销（区块重组）',
    auto_collect: '自动归集', ac_pending: '等待中', ac_started: '已开始', ac_skipped: '已跳过', none_found: '没有匹配的充值。',
    address_hint: '您的某个地址（完整）。',
  },
});

function Deposits({ api, t, route, lang }) {
  const address = route.query.get('address') ?? '';
  const asset = route.query.get('asset_symbol') ?? '';
  const status = STATUSES.includes(route.query.get('status')) ? route.query.get('status') : '';
  const page = pageOf(route.query);
  const [form, setForm] = useState({ address, asset, status });
  const set = (key) => (value) => setForm((f) => ({ ...f, [key]: value }));
  const { data, error } = usePoll(({ background }) => api.get('/deposits', {
    address: address || undefined, asset_symbol: asset || undefined, status: status || undefined, page, per_page: PER_PAGE,
  }, { background }), { deps: [address, asset, status, page] });
  const goTo = (values) => route.go(`/deposits${queryOf(values)}`);
  const filtered = address || asset || status;
  const columns = [
    { key: 'detected_at', label: t('detected'), render: (d) => html`<${Time} iso=${isoOf(d.detected_at)} lang=${lang} />` },
    { key: 'amount', label: t('amount'), numeric: true, render: (d) => html`<${Amount} value=${d.amount} asset=${d.asset_symbol} lang=${lang} />` },
    { key: 'status', label: t('status'), render: (d) => t(`dst_${d.status}`) },
    { key: 'address', label: t('address'), render: (d) => html`<a href=${`#/addresses/${encodeURIComponent(d.address)}`}><${Mono} value=${d.address} /></a>` },
    { key: 'from_address', label: t('from'), render: (d) => html`<${Mono} value=${d.from_address} />` },
    { key: 'txid', label: t('txid'), render: (d) => html`<${Mono} value=${d.txid} />` },
    { key: 'block_number', label: t('block'), numeric: true, render: (d) => String(d.block_number) },
    { key: 'confirmed_at', label: t('confirmed_at'), render: (d) => html`<${Time} iso=${isoOf(d.confirmed_at)} lang=${lang} />` },
    { key: 'auto_collect', label: t('auto_collect'), render: (d) => (d.auto_collect ? t(`ac_${d.auto_collect}`) : '—') },
  ];
  return html`
    <${Filters} label=${t('list_label')} t=${t} onSubmit=${() => goTo({ address: form.address.trim(), asset_symbol: form.asset, status: form.status })}
      onClear=${filtered ? () => { setForm({ address: '', asset: '', status: '' }); goTo({}); } : null}>
      <${Field} label=${t('address')} hint=${t('address_hint')} value=${form.address} onInput=${set('address')} autocomplete="off" spellcheck="false" />
      <${Field} label=${t('asset')} as="select" value=${form.asset} onInput=${set('asset')} options=${[{ value: '', label: t('all') }, ...ASSETS.map((a) => ({ value: a, label: a }))]} />
      <${Field} label=${t('status')} as="select" value=${form.status} onInput=${set('status')} options=${[{ value: '', label: t('all') }, ...STATUSES.map((s) => ({ value: s, label: t(`dst_${s}`) }))]} />
    </${Filters}>
    <${ErrorBanner} error=${error} />
    ${data === undefined ? (error ? null : html`<${Loading} t=${t} />`) : html`
      ${data.items.length === 0 ? html`<${EmptyState}>${filtered ? t('none_found') : t('empty')}</${EmptyState}>`
        : html`<${Table} t=${t} caption=${t('deposits')} captionHidden=${true} rows=${data.items} rowKey=${(d) => d.deposit_id} columns=${columns} />`}
      <${Pager} t=${t} page=${page} pages=${data.pagination.pages} onPage=${(p) => goTo({ address, asset_symbol: asset, status, page: p })} />
      <p class="muted">${t('refresh_note')}</p>`}`;
}

export default {
  id: 'deposits', path: '/deposits', roles: ALL_ROLES, title: { en: 'Deposits', zh: '充值' }, messages, Screen: Deposits,
};
