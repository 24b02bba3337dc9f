// The daily summary (issue #38 item 2): GET /api/admin/daily-summary, the figures of the worker's 00:00 UTC "daily
// summary" line for the day before (collections, their cost, stuck reports, DEAD webhooks, the ledger's bookings and
// discrepancies) and the discrepancies between the books and the chain still standing.
import { html } from '../../app/lib/html.js';
import { Amount, ErrorBanner, Loading, Table, Time } from '../../app/lib/components.js';
import { usePoll } from '../../app/lib/poll.js';

function Summary({ data, t, lang }) {
  if (data.summary === null) return html`<p role="status">${t('none')}</p>`;
  const s = data.summary;
  const columns = [
    { key: 'network_code', label: t('network') },
    { key: 'address', label: t('address'), render: (d) => html`<code>${d.address}</code>` },
    { key: 'asset_symbol', label: t('asset') },
    { key: 'unexplained', label: t('unexplained'), numeric: true, render: (d) => html`<${Amount} value=${d.unexplained} asset=${d.asset_symbol} lang=${lang} />` },
  ];
  return html`
    <p role="status">${t('written')} <${Time} iso=${data.written_at} lang=${lang} /></p>
    <dl class="facts">
      <dt>${t('collections')}</dt><dd>${s.collections}</dd>
      <dt>${t('failed_collections')}</dt><dd>${s.failed_collections}</dd>
      <dt>${t('cost')}</dt><dd><${Amount} value=${s.cost_sun} asset="TRX" lang=${lang} /></dd>
      <dt>${t('stuck')}</dt><dd>${s.stuck}</dd>
      <dt>${t('dead_webhooks')}</dt><dd>${s.dead_webhooks}</dd>
      <dt>${t('ledger_sweeps')}</dt><dd>${s.ledger_sweeps}</dd>
      <dt>${t('ledger_fees')}</dt><dd><${Amount} value=${s.ledger_fees_sun} asset="TRX" lang=${lang} /></dd>
      <dt>${t('ledger_discrepancies')}</dt><dd>${s.ledger_discrepancies}</dd>
    </dl>
    <h2>${t('standing')}</h2>
    ${s.standing_discrepancies.length === 0 ? html`<p class="muted">${t('none_standing')}</p>`
      : html`<${Table} columns=${columns} rows=${s.standing_discrepancies} caption=${t('standing')} captionHidden=${true}
          rowKey=${(d) => `${d.address}:${d.asset_symbol}`} t=${t} />`}`;
}

function Screen({ api, t, lang }) {
  const latest = usePoll(({ background }) => api.get('/admin/daily-summary', undefined, { background }), { intervalMs: 60_000 });
  return html`
    <p class="muted">${t('intro')}</p>
    <${ErrorBanner} error=${latest.error} t=${t} onRetry=${latest.refresh} />
    ${latest.data === undefined ? (latest.loading ? html`<${Loading} t=${t} />` : null) : html`<${Summary} data=${latest.data} t=${t} lang=${lang} />`}`;
}

export default {
  id: 'daily-summary',
  path: '/daily-summary',
  title: { en: 'Daily summary', zh: '每日汇总' },
  messages: {
    en: {
      intro: 'The worker\'s summary of the day before, written at 00:00 UTC: one worker\'s totals.',
      none: 'No daily summary yet: the worker writes the first one at 00:00 UTC.', written: 'Written',
      collections: 'Collections', failed_collections: 'Failed collections', cost: 'Collection cost', stuck: 'Workflows reported stuck',
      dead_webhooks: 'Dead webhook deliveries', ledger_sweeps: 'Collections booked', ledger_fees: 'Chain fees booked',
      ledger_discrepancies: 'Ledger discrepancies reported', standing: 'Discrepancies between the books and the chain still standing',
      none_standing: 'None: the books match the chain.', network: 'Network', address: 'Address', asset: 'Asset', unexplained: 'Unexplained',
    },
    zh: {
      intro: 'worker 在 UTC 00:00 写入的前一天汇总（单个 worker 的合计）。',
      none: '尚无每日汇总：worker 将在 UTC 00:00 写入第一份。', written: '写入时间',
      collections: '归集次数', failed_collections: '失败的归集', cost: '归集成本', stuck: '报告卡住的工作流',
      dead_webhooks: '投递失败的 Webhook', ledger_sweeps: '已记账的归集', ledger_fees: '已记账的链上手续费',
      ledger_discrepancies: '报告的账链差异', standing: '仍存在的账本与链上差异',
      none_standing: '无：账本与链上一致。', network: '网络', address: '地址', asset: '资产', unexplained: '无法解释的差额',
    },
  },
  Screen,
};
