// DEAD webhook deliveries across accounts (issue #38 item 2): GET /api/admin/webhooks/deliveries/dead, newest first,
// with the account, the event, the URL and how the last attempt ended. Redelivery is the merchant's (their console's
// Developers screen): the operator sees which merchants' endpoints are failing.
import { html, useState } from '../../app/lib/html.js';
import { ErrorBanner, Loading, Pager, Table, Time } from '../../app/lib/components.js';
import { usePoll } from '../../app/lib/poll.js';

function Screen({ api, t, lang }) {
  const [page, setPage] = useState(1);
  const list = usePoll(({ background }) => api.get('/admin/webhooks/deliveries/dead', { page, per_page: 20 }, { background }), { intervalMs: 30_000, deps: [page] });
  const columns = [
    { key: 'created_at', label: t('created'), render: (d) => html`<${Time} iso=${d.created_at} lang=${lang} />` },
    { key: 'user_id', label: t('account'), numeric: true },
    { key: 'event_type', label: t('event') },
    { key: 'url', label: t('url'), render: (d) => (d.url ? html`<code>${d.url}</code>` : '—') },
    { key: 'attempts', label: t('attempts'), numeric: true },
    { key: 'last', label: t('last_attempt'), render: (d) => html`<${Time} iso=${d.last_attempt_at} lang=${lang} />` },
    { key: 'outcome', label: t('outcome'), render: (d) => [d.last_http_status === null ? null : `HTTP ${d.last_http_status}`, d.last_error].filter(Boolean).join(' · ') || '—' },
    { key: 'delivery_id', label: t('delivery'), render: (d) => html`<code>${d.delivery_id}</code>` },
  ];
  return html`
    <p class="muted">${t('intro')}</p>
    <${ErrorBanner} error=${list.error} t=${t} onRetry=${list.refresh} />
    ${list.data === undefined ? (list.loading ? html`<${Loading} t=${t} />` : null) : html`
      <p role="status">${t('total', { total: list.data.pagination.total })}</p>
      <${Table} columns=${columns} rows=${list.data.items} caption=${t('caption')} captionHidden=${true} rowKey=${(d) => d.delivery_id} t=${t} />
      <${Pager} page=${page} pages=${list.data.pagination.pages} onPage=${setPage} t=${t} />`}`;
}

export default {
  id: 'dead-deliveries',
  path: '/dead-deliveries',
  title: { en: 'Dead deliveries', zh: '投递失败的 Webhook' },
  messages: {
    en: {
      intro: 'Webhook deliveries whose retries ran out, across accounts. The merchant redelivers them from their console once the endpoint works.',
      caption: 'Dead webhook deliveries, newest first', total: '{total} dead deliveries', created: 'Created', account: 'Account', event: 'Event',
      url: 'URL', attempts: 'Attempts', last_attempt: 'Last attempt', outcome: 'Last outcome', delivery: 'Delivery',
      empty: 'No dead deliveries.',
    },
    zh: {
      intro: '所有账户中重试已用尽的 Webhook 投递。商户修复接收端后可在其控制台重新投递。',
      caption: '投递失败的 Webhook（最新在前）', total: '共 {total} 条投递失败', created: '创建时间', account: '账户', event: '事件',
      url: 'URL', attempts: '尝试次数', last_attempt: '最后尝试', outcome: '最后结果', delivery: '投递编号',
      empty: '没有投递失败的记录。',
    },
  },
  Screen,
};
