// Addresses (issue #38 item 1): the main address and the sub-addresses (GET /wallets) with their balances (GET
// /wallets/{address}/balances, the cached snapshot), one address's page, and creating one (POST /wallets; the plan's
// quota and every other refusal shown with the API's message). Balances refresh by polling, slowly: one read per address.
import { html, useState } from '../lib/html.js';
import { Amount, EmptyState, ErrorBanner, Field, Loading, Notice, Pager, Table, Time, useAction } from '../lib/components.js';
import { usePoll } from '../lib/poll.js';
import { ALL_ROLES, CREATE_ROLES, Filters, isoOf, Mono, pageOf, queryOf, useFocusWhenReady, withShared } from './money-parts.js';

/** Addresses per page: each costs one balance read a round. */
const PER_PAGE = 10;
/** Up to 11 reads a round: every 30 s stays far below the API's 60 GETs a minute. */
const POLL_MS = 30_000;

const messages = withShared({
  en: {
    list_label: 'Filter addresses', type: 'Type', label: 'Label', balances: 'Balances', updated: 'Balance as of', addresses: 'Addresses',
    any_type: 'All types', active: 'active', disabled: 'disabled', locked: 'locked', no_balance: 'none yet',
    create_title: 'New address', create: 'Create address', label_hint: 'Optional, up to 120 characters (an order, a customer).',
    created_ok: 'Address {address} created.', deposits_link: 'Deposits', collections_link: 'Collections', details: 'Address',
    available: 'Available', locked_col: 'Locked', network: 'Network', created: 'Created', source: 'Source',
    source_1: 'the service (scanner)', source_2: 'a refresh on request',
  },
  zh: {
    list_label: '筛选地址', type: '类型', label: '标签', balances: '余额', updated: '余额更新时间', addresses: '地址列表',
    any_type: '全部类型', active: '启用', disabled: '停用', locked: '冻结', no_balance: '暂无',
    create_title: '新建地址', create: '创建地址', label_hint: '可选，最多 120 个字符（订单、客户）。',
    created_ok: '地址 {address} 已创建。', deposits_link: '充值记录', collections_link: '归集记录', details: '地址',
    available: '可用', locked_col: '冻结', network: '网络', created: '创建时间', source: '来源',
    source_1: '服务自动更新（扫描）', source_2: '手动刷新',
  },
});

const typeText = (t, type) => (type === 1 ? t('main') : t('sub'));
const settle = (promise) => promise.then((value) => ({ value }), (error) => ({ error }));

function BalanceCell({ result, t, lang }) {
  if (result === undefined) return '…';
  if (result.error) return html`<span class="field-error">${result.error.message}</span>`;
  const items = result.value.items;
  if (items.length === 0) return html`<span class="muted">${t('no_balance')}</span>`;
  return html`${items.map((b, i) => html`${i > 0 ? html`<br />` : null}<${Amount} value=${b.balance_available} asset=${b.symbol} lang=${lang} />${b.balance_locked !== '0'
    ? html` <span class="muted">(${t('locked')} <${Amount} value=${b.balance_locked} asset=${b.symbol} lang=${lang} />)</span>` : null}`)}`;
}

function CreateAddress({ api, t, onCreated }) {
  const [type, setType] = useState('2');
  const [label, setLabel] = useState('');
  const [created, setCreated] = useState(null);
  const [submit, busy, error] = useAction(async () => {
    const body = { network_code: 'TRON', address_type: Number(type) };
    if (label.trim() !== '') body.address_label = label.trim();
    const answer = await api.post('/wallets', body);
    setCreated(answer);
    setLabel('');
    onCreated();
  });
  return html`<section class="card narrow" aria-labelledby="create-address-title">
    <h2 id="create-address-title">${t('create_title')}</h2>
    ${created ? html`<${Notice} kind="success"><p>${t('created_ok', { address: created.address })}</p></${Notice}>` : null}
    <form onSubmit=${(e) => { e.preventDefault(); setCreated(null); submit(); }}>
      <${ErrorBanner} error=${error} />
      <${Field} label=${t('type')} as="select" value=${type} onInput=${setType} options=${[{ value: '2', label: t('sub') }, { value: '1', label: t('main') }]} />
      <${Field} label=${t('label')} hint=${t('label_hint')} value=${label} onInput=${setLabel} maxlength="120" autocomplete="off" />
      <div class="actions"><button type="submit" class="primary" disabled=${busy}>${busy ? t('loading') : t('create')}</button></div>
    </form>
  </section>`;
}

function AddressList({ api, session, t, route, lang }) {
  const type = ['1', '2'].includes(route.query.get('type')) ? route.query.get('type') : '';
  const page = pageOf(route.query);
  const [typeSel, setTypeSel] = useState(type);
  const { data, error, refresh } = usePoll(async ({ background }) => {
    const list = await api.get('/wallets', { type: type || undefined, page, per_page: PER_PAGE }, { background });
    const balances = await Promise.all(list.items.map((w) => settle(api.get(`/wallets/${encodeURIComponent(w.address)}/balances`, undefined, { background }))));
    return { list, balances: new Map(list.items.map((w, i) => [w.address, balances[i]])) };
  }, { intervalMs: POLL_MS, deps: [type, page] });
  const goTo = (values) => route.go(`/addresses${queryOf(values)}`);
  const columns = [
    { key: 'address', label: t('address'), render: (w) => html`<a href=${`#/addresses/${encodeURIComponent(w.address)}`}><${Mono} value=${w.address} /></a>` },
    { key: 'label', label: t('label'), render: (w) => w.address_label ?? '—' },
    { key: 'type', label: t('type'), render: (w) => typeText(t, w.address_type) },
    { key: 'balances', label: t('balances'), numeric: true, render: (w) => html`<${BalanceCell} result=${data.balances.get(w.address)} t=${t} lang=${lang} />` },
    { key: 'updated', label: t('updated'), render: (w) => html`<${Time} iso=${isoOf(data.balances.get(w.address)?.value?.balance_updated_at)} lang=${lang} />` },
    { key: 'status', label: t('status'), render: (w) => (w.status === 1 ? t('active') : t('disabled')) },
    { key: 'links', label: t('deposits_link'), render: (w) => html`<a href=${`#/deposits${queryOf({ address: w.address })}`}>${t('deposits_link')}</a>` },
  ];
  return html`
    ${CREATE_ROLES.includes(session.role) ? html`<${CreateAddress} api=${api} t=${t} onCreated=${refresh} />` : null}
    <${Filters} label=${t('list_label')} t=${t} onSubmit=${() => goTo({ type: typeSel })}>
      <${Field} label=${t('type')} as="select" value=${typeSel} onInput=${setTypeSel}
        options=${[{ value: '', label: t('any_type') }, { value: '1', label: t('main') }, { value: '2', label: t('sub') }]} />
    </${Filters}>
    <${ErrorBanner} error=${error} />
    ${data === undefined ? (error ? null : html`<${Loading} t=${t} />`) : html`
      ${data.list.items.length === 0 ? html`<${EmptyState} t=${t} />`
        : html`<${Table} t=${t} caption=${t('addresses')} captionHidden=${true} rows=${data.list.items} rowKey=${(w) => w.address} columns=${columns} />`}
      <${Pager} t=${t} page=${page} pages=${data.list.pagination.pages} onPage=${(p) => goTo({ type, page: p })} />`}`;
}

function AddressDetail({ api, t, lang, address }) {
  const { data, error } = usePoll(async ({ background }) => {
    const [wallet, balance] = await Promise.all([
      api.get(`/wallets/${encodeURIComponent(address)}`, undefined, { background }),
      settle(api.get(`/wallets/${encodeURIComponent(address)}/balances`, undefined, { background })),
    ]);
    return { wallet, balance };
  }, { intervalMs: POLL_MS / 2, deps: [address] });
  const heading = useFocusWhenReady(data !== undefined);
  const back = html`<p><a href="#/addresses">${t('back')}</a></p>`;
  if (data === undefined) return html`${back}${error ? html`<${ErrorBanner} error=${error} />` : html`<${Loading} t=${t} />`}`;
  const { wallet, balance } = data;
  return html`${back}
    <${ErrorBanner} error=${error} />
    <section class="part" aria-labelledby="address-title">
      <h2 id="address-title" tabindex="-1" ref=${heading}>${wallet.address_label ?? typeText(t, wallet.address_type)}</h2>
      <dl class="facts">
        <dt>${t('address')}</dt><dd><${Mono} value=${wallet.address} /></dd>
        <dt>${t('type')}</dt><dd>${typeText(t, wallet.address_type)}</dd>
        <dt>${t('network')}</dt><dd>${wallet.network_code}</dd>
        <dt>${t('status')}</dt><dd>${wallet.status === 1 ? t('active') : t('disabled')}</dd>
        <dt>${t('created')}</dt><dd><${Time} iso=${isoOf(wallet.created_at)} lang=${lang} /></dd>
      </dl>
    </section>
    <section class="part" aria-labelledby="balances-title">
      <h2 id="balances-title">${t('balances')}</h2>
      <${ErrorBanner} error=${balance.error} />
      ${balance.value ? html`
        <${Table} t=${t} caption=${t('balances')} captionHidden=${true} rows=${balance.value.items} rowKey=${(b) => b.symbol} columns=${[
          { key: 'symbol', label: t('asset') },
          { key: 'available', label: t('available'), numeric: true, render: (b) => html`<${Amount} value=${b.balance_available} asset=${b.symbol} lang=${lang} />` },
          { key: 'locked', label: t('locked_col'), numeric: true, render: (b) => html`<${Amount} value=${b.balance_locked} asset=${b.symbol} lang=${lang} />` },
          { key: 'updated', label: t('updated'), render: (b) => html`<${Time} iso=${isoOf(b.balance_updated_at)} lang=${lang} />` },
        ]} />
        <p class="muted">${t('source')}: ${t(`source_${balance.value.refresh_source}`)}</p>` : null}
    </section>
    <p class="links">
      <a href=${`#/deposits${queryOf({ address: wallet.address })}`}>${t('deposits_link')}</a>
      ${wallet.address_type === 2 ? html`<a href=${`#/collections${queryOf({ address: wallet.address })}`}>${t('collections_link')}</a>` : null}
    </p>`;
}

function Addresses(props) {
  const [address] = props.route.rest;
  return address === undefined ? html`<${AddressList} ...${props} />` : html`<${AddressDetail} ...${props} address=${address} />`;
}

export default {
  id: 'addresses', path: '/addresses', roles: ALL_ROLES, title: { en: 'Addresses', zh: '地址' }, messages, Screen: Addresses,
};
