// Books (issue #38 item 1): the statement for a date range (GET /ledger/statement), the entries with filters and pages
// (GET /ledger/entries, live), the reconciliation of the books against the chain (GET /ledger/reconciliation, on
// demand: it reads the chain), and CSV downloads of the statement and of the filtered entries (format=csv through
// api.download). Days are the browser's: a range runs from the start of the first day to the end of the last.
import { html, useState } from '../lib/html.js';
import { Amount, ErrorBanner, Field, Loading, Pager, Table, Time, useAction } from '../lib/components.js';
import { localDay } from '../lib/format.js';
import { usePoll } from '../lib/poll.js';
import { ALL_ROLES, localDayIso } from './screen-common.js';

const ASSETS = ['TRX', 'USDT'];
const KINDS = ['deposit', 'collection', 'withdrawal', 'refund', 'staking', 'staking_reward'];
const ACCOUNT_KINDS = ['custodial', 'staked', 'unstaking', 'fee_trx_burned', 'fee_bandwidth', 'fee_energy_rental', 'external_in', 'external_out', 'provider_prepaid'];

const messages = {
  en: {
    statement: 'Statement', from: 'From', to: 'To', asset: 'Asset', all: 'All', show: 'Show statement', download_csv: 'Download CSV',
    download_statement: 'Download statement CSV', download_entries: 'Download entries CSV', downloading: 'Preparing the file…',
    opening: 'Opening', received: 'Received', costs: 'Costs', sent: 'Sent', closing: 'Closing', refunded: 'Refunded',
    entries: 'Entries', kind: 'Kind', account_kind: 'Account', address: 'Address', apply: 'Apply filters',
    occurred: 'Time', amount: 'Amount', balance_after: 'Balance after', cause: 'Cause', reconciliation: 'Reconciliation',
    check: 'Check the books against the chain', checking: 'Reading the chain…', checked: 'Checked at', status: 'Status',
    ledger_balance: 'Books', chain_balance: 'Chain', difference: 'Difference', explained: 'Explained', unexplained: 'Unexplained',
    matched: 'matched', unsettled: 'unsettled', discrepancy: 'discrepancy', explained_s: 'explained',
    summary: '{matched} matched, {explained} explained, {unsettled} unsettled, {discrepancy} discrepancies',
    pending_deposit: 'pending deposit', staked: 'staked', reco_hint: 'Reads each address\'s balance on chain now; it may take a moment.',
    custodial: 'custodial', fee_trx_burned: 'fee: TRX burned', fee_bandwidth: 'fee: bandwidth', fee_energy_rental: 'fee: energy rental',
    external_in: 'in from outside', external_out: 'out to outside', deposit: 'deposit', collection: 'collection', withdrawal: 'withdrawal', refund: 'refund',
    unstaking: 'unstaking', provider_prepaid: 'energy provider (prepaid)', staking: 'staking', staking_reward: 'staking reward', prepaid: 'of which prepaid rentals',
  },
  zh: {
    statement: '对账单', from: '开始日期', to: '结束日期', asset: '资产', all: '全部', show: '查看对账单', download_csv: '下载 CSV',
    download_statement: '下载对账单 CSV', download_entries: '下载分录 CSV', downloading: '正在准备文件…',
    opening: '期初', received: '收入', costs: '费用', sent: '转出', closing: '期末', refunded: '退款',
    entries: '分录', kind: '类型', account_kind: '账户', address: '地址', apply: '应用筛选',
    occurred: '时间', amount: '金额', balance_after: '变动后余额', cause: '来源', reconciliation: '对账',
    check: '核对账簿与链上余额', checking: '正在读取链上数据…', checked: '核对时间', status: '状态',
    ledger_balance: '账簿', chain_balance: '链上', difference: '差额', explained: '已解释', unexplained: '未解释',
    matched: '一致', unsettled: '未结算', discrepancy: '不一致', explained_s: '可解释',
    summary: '一致 {matched}，可解释 {explained}，未结算 {unsettled}，不一致 {discrepancy}',
    pending_deposit: '待确认充值', staked: '质押', reco_hint: '将实时读取每个地址的链上余额，可能需要一点时间。',
    custodial: '托管地址', fee_trx_burned: '费用：燃烧 TRX', fee_bandwidth: '费用：带宽', fee_energy_rental: '费用：能量租赁',
    external_in: '外部转入', external_out: '转出到外部', deposit: '充值', collection: '归集', withdrawal: '提现', refund: '退款',
    unstaking: '解锁中', provider_prepaid: '能量服务商（预付）', staking: '质押与解押', staking_reward: '质押奖励', prepaid: '其中预付租赁',
  },
};

const assetOptions = (t) => [{ value: '', label: t('all') }, ...ASSETS.map((a) => ({ value: a, label: a }))];

function Statement({ api, t, lang }) {
  const today = localDay(new Date());
  const [form, setForm] = useState({ from: `${today.slice(0, 8)}01`, to: today, asset: '' });
  const [shown, setShown] = useState(null);
  const query = () => ({ from: localDayIso(form.from), to: localDayIso(form.to, true), asset_symbol: form.asset });
  const [show, busy, error] = useAction(async () => setShown(await api.get('/ledger/statement', query())));
  const [download, downloading, downloadError] = useAction(() => api.download('/ledger/statement', { ...query(), format: 'csv' }, `statement-${form.from}-${form.to}.csv`));
  const set = (name) => (value) => setForm((f) => ({ ...f, [name]: value }));
  const money = (key) => ({ key, label: t(key), numeric: true, render: (r) => html`<${Amount} value=${r[key]} asset=${r.asset_symbol} lang=${lang} />` });
  return html`<section aria-labelledby="statement-title">
    <h2 id="statement-title">${t('statement')}</h2>
    <form class="card" onSubmit=${(e) => { e.preventDefault(); show(); }}>
      <${Field} label=${t('from')} type="date" value=${form.from} onInput=${set('from')} required />
      <${Field} label=${t('to')} type="date" value=${form.to} onInput=${set('to')} required />
      <${Field} as="select" label=${t('asset')} value=${form.asset} onInput=${set('asset')} options=${assetOptions(t)} />
      <div class="actions">
        <button type="submit" class="primary" disabled=${busy}>${t('show')}</button>
        <button type="button" disabled=${downloading} onClick=${() => download()}>${t('download_statement')}</button>
      </div>
    </form>
    ${busy ? html`<${Loading} t=${t} />` : null}
    ${downloading ? html`<${Loading} t=${t} label=${t('downloading')} />` : null}
    <${ErrorBanner} error=${error ?? downloadError} />
    ${shown ? html`<p><${Time} iso=${shown.from} lang=${lang} /> – <${Time} iso=${shown.to} lang=${lang} /></p>
      <${Table} t=${t} caption=${t('statement')} captionHidden=${true} rows=${shown.assets} rowKey=${(r) => r.asset_symbol} columns=${[
        { key: 'asset_symbol', label: t('asset') }, money('opening'), money('received'), money('prepaid'), money('costs'), money('sent'), money('closing'), money('refunded'),
      ]} />` : null}
  </section>`;
}

function Entries({ api, t, lang }) {
  const blank = { from: '', to: '', asset: '', kind: '', account: '', address: '' };
  const [form, setForm] = useState(blank);
  const [filters, setFilters] = useState(blank);
  const [page, setPage] = useState(1);
  const query = (f) => ({
    from: f.from ? localDayIso(f.from) : undefined, to: f.to ? localDayIso(f.to, true) : undefined, asset_symbol: f.asset,
    kind: f.kind, account_kind: f.account, address: f.address.trim(),
  });
  const { data, error } = usePoll(({ background }) => api.get('/ledger/entries', { ...query(filters), page, per_page: 20 }, { background }), { deps: [filters, page] });
  const [download, downloading, downloadError] = useAction(() => api.download('/ledger/entries', { ...query(filters), format: 'csv' }, 'ledger-entries.csv'));
  const set = (name) => (value) => setForm((f) => ({ ...f, [name]: value }));
  const options = (values) => [{ value: '', label: t('all') }, ...values.map((v) => ({ value: v, label: t(v) }))];
  return html`<section aria-labelledby="entries-title">
    <h2 id="entries-title">${t('entries')}</h2>
    <form class="card" onSubmit=${(e) => { e.preventDefault(); setPage(1); setFilters(form); }}>
      <${Field} label=${`${t('entries')}: ${t('from')}`} type="date" value=${form.from} onInput=${set('from')} />
      <${Field} label=${`${t('entries')}: ${t('to')}`} type="date" value=${form.to} onInput=${set('to')} />
      <${Field} as="select" label=${`${t('entries')}: ${t('asset')}`} value=${form.asset} onInput=${set('asset')} options=${assetOptions(t)} />
      <${Field} as="select" label=${t('kind')} value=${form.kind} onInput=${set('kind')} options=${options(KINDS)} />
      <${Field} as="select" label=${t('account_kind')} value=${form.account} onInput=${set('account')} options=${options(ACCOUNT_KINDS)} />
      <${Field} label=${t('address')} value=${form.address} onInput=${set('address')} spellcheck="false" />
      <div class="actions">
        <button type="submit" class="primary">${t('apply')}</button>
        <button type="button" disabled=${downloading} onClick=${() => download()}>${t('download_entries')}</button>
      </div>
    </form>
    ${downloading ? html`<${Loading} t=${t} label=${t('downloading')} />` : null}
    <${ErrorBanner} error=${error ?? downloadError} />
    ${data === undefined ? (error ? null : html`<${Loading} t=${t} />`) : html`
      <${Table} t=${t} caption=${t('entries')} captionHidden=${true} rows=${data.items} rowKey=${(e) => e.entry_id} columns=${[
        { key: 'occurred_at', label: t('occurred'), render: (e) => html`<${Time} iso=${e.occurred_at} lang=${lang} />` },
        { key: 'kind', label: t('kind'), render: (e) => t(e.kind) },
        { key: 'account', label: t('account_kind'), render: (e) => html`${t(e.account.kind)}${(e.account.address ?? e.account.holder) ? html` <code>${e.account.address ?? e.account.holder}</code>` : null}` },
        { key: 'amount', label: t('amount'), numeric: true, render: (e) => html`<${Amount} value=${e.amount} asset=${e.account.asset_symbol} lang=${lang} />` },
        { key: 'balance_after', label: t('balance_after'), numeric: true, render: (e) => html`<${Amount} value=${e.balance_after} asset=${e.account.asset_symbol} lang=${lang} />` },
        { key: 'cause', label: t('cause'), render: (e) => html`<code>${e.cause.txid ?? e.cause.id}</code>` },
      ]} />
      <${Pager} page=${page} pages=${data.pagination?.pages} onPage=${setPage} t=${t} />`}
  </section>`;
}

function Reconciliation({ api, t, lang }) {
  const [page, setPage] = useState(1);
  const [result, setResult] = useState(null);
  const [check, busy, error] = useAction(async (p) => { setPage(p); setResult(await api.get('/ledger/reconciliation', { page: p, per_page: 20 })); });
  const rows = result === null ? [] : result.items.flatMap((item) => item.assets.map((a) => ({ ...a, address: item.address })));
  const money = (key) => ({ key, label: t(key), numeric: true, render: (r) => html`<${Amount} value=${r[key]} asset=${r.asset_symbol} lang=${lang} />` });
  return html`<section aria-labelledby="reco-title">
    <h2 id="reco-title">${t('reconciliation')}</h2>
    <p class="muted">${t('reco_hint')}</p>
    <div class="actions"><button type="button" disabled=${busy} onClick=${() => check(page)}>${t('check')}</button></div>
    ${busy ? html`<${Loading} t=${t} label=${t('checking')} />` : null}
    <${ErrorBanner} error=${error} />
    ${result === null ? null : html`
      <p>${t('checked')}: <${Time} iso=${result.checked_at} lang=${lang} />. ${t('summary', result.summary)}</p>
      <${Table} t=${t} caption=${t('reconciliation')} captionHidden=${true} rows=${rows} rowKey=${(r) => `${r.address}:${r.asset_symbol}`} columns=${[
        { key: 'address', label: t('address'), render: (r) => html`<code>${r.address}</code>` },
        { key: 'asset_symbol', label: t('asset') },
        { key: 'status', label: t('status'), render: (r) => t(r.status === 'explained' ? 'explained_s' : r.status) },
        money('ledger_balance'), money('chain_balance'), money('difference'),
        { key: 'explained', label: t('explained'), render: (r) => r.explained.map((x) => html`<div>${t(x.reason)}: <${Amount} value=${x.amount} asset=${r.asset_symbol} lang=${lang} /></div>`) },
        money('unexplained'),
      ]} />
      <${Pager} page=${page} pages=${result.pagination?.pages} onPage=${(p) => check(p)} t=${t} />`}
  </section>`;
}

function Books(props) {
  return html`<${Statement} ...${props} /><${Entries} ...${props} /><${Reconciliation} ...${props} />`;
}

export default { id: 'books', path: '/books', roles: ALL_ROLES, title: { en: 'Books', zh: '账簿' }, messages, Screen: Books };
