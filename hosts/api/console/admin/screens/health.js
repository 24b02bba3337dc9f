// Node and scanner health (issue #38 item 2), from what the API exposes: GET /api/readyz, each backing service's check
// (the store, the locks, the chain node, the store's chain identity, the scanner where it runs in this process). The
// worker's lag, TRON calls spent and rate-limit figures are Prometheus metrics on the worker's own port (METRICS_PORT),
// which this origin does not serve: the screen says so instead of showing them.
import { html } from '../../app/lib/html.js';
import { ErrorBanner, Loading, Table } from '../../app/lib/components.js';
import { usePoll } from '../../app/lib/poll.js';

function Screen({ api, t }) {
  const ready = usePoll(({ background }) => api.get('/readyz', undefined, { background }), { intervalMs: 10_000 });
  const columns = [
    { key: 'name', label: t('check'), render: (c) => t(`check_${c.name}`) === `check_${c.name}` ? c.name : t(`check_${c.name}`) },
    { key: 'ok', label: t('state'), render: (c) => html`<span class=${c.ok ? 'ok' : 'field-error'}>${c.ok ? t('ok') : t('failing')}</span>` },
  ];
  return html`
    <section aria-labelledby="health-ready">
      <h2 id="health-ready">${t('readiness')}</h2>
      <${ErrorBanner} error=${ready.error} t=${t} onRetry=${ready.refresh} />
      ${ready.data === undefined ? (ready.loading ? html`<${Loading} t=${t} />` : null)
        : html`<p role="status">${t('all_ready')}</p>
          <${Table} columns=${columns} rows=${ready.data.checks} caption=${t('checks')} rowKey=${(c) => c.name} t=${t} />`}
    </section>
    <section class="card" aria-labelledby="health-metrics">
      <h2 id="health-metrics">${t('metrics_title')}</h2>
      <p>${t('metrics_text')}</p>
    </section>`;
}

export default {
  id: 'health',
  path: '/health',
  title: { en: 'Node and scanner health', zh: '节点与扫描器状态' },
  messages: {
    en: {
      readiness: 'Readiness', checks: 'Readiness checks', check: 'Check', state: 'State', ok: 'OK', failing: 'Failing',
      all_ready: 'The API and its backing services are ready.', check_store: 'Store', check_locks: 'Locks', check_chain: 'TRON node',
      check_redis: 'Redis', 'check_store-chain': 'Store\'s chain identity', 'check_scanner-chain': 'Balance scanner',
      metrics_title: 'Lag, calls spent and rate limits',
      metrics_text: 'The scanner\'s lag behind the node, the TRON calls spent and the node\'s rate limits are Prometheus metrics of the worker (its /metrics on METRICS_PORT), not served by the API: read them there or in your dashboards.',
    },
    zh: {
      readiness: '就绪状态', checks: '就绪检查', check: '检查项', state: '状态', ok: '正常', failing: '异常',
      all_ready: 'API 及其依赖服务均已就绪。', check_store: '存储', check_locks: '锁', check_chain: 'TRON 节点',
      check_redis: 'Redis', 'check_store-chain': '存储的链标识', 'check_scanner-chain': '余额扫描器',
      metrics_title: '延迟、调用消耗与速率限制',
      metrics_text: '扫描器相对节点的延迟、TRON 调用消耗和节点速率限制是 worker 的 Prometheus 指标（METRICS_PORT 上的 /metrics），API 不提供：请在那里或您的监控面板中查看。',
    },
  },
  Screen,
};
