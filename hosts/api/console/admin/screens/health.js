// Node and scanner health (issue #38 item 2): GET /api/readyz, each backing service's check (the store, the locks, the
// chain node, the store's chain identity, the scanner where it runs in this process); and GET /api/admin/health, the
// snapshot the worker writes to the store every minute: the scanner's lag, the node calls spent, each scanner node's
// pause, budget and failures (rate-limit refusals among them), with its age (stale past 180 s: no worker writing).
import { html } from '../../app/lib/html.js';
import { ErrorBanner, Loading, Table, Time } from '../../app/lib/components.js';
import { usePoll } from '../../app/lib/poll.js';

const isoOfMs = (ms) => new Date(ms).toISOString();

/** The worker's snapshot: its age and state, the scanner's lag, the calls by purpose, and each node. */
function WorkerHealth({ health, t, lang }) {
  if (health.status === 'none') return html`<p role="status">${t('worker_none')}</p>`;
  const snap = health.snapshot;
  const nodeColumns = [
    { key: 'node', label: t('node'), render: (n) => html`<code>${n.node}</code>` },
    { key: 'calls', label: t('calls'), numeric: true },
    { key: 'budget_left', label: t('budget_left'), numeric: true, render: (n) => (n.budget === null ? t('no_budget') : `${n.budget_left} / ${n.budget}`) },
    { key: 'paused', label: t('paused'), render: (n) => (n.paused
      ? html`<span class="field-error">${t('paused_until')} <${Time} iso=${isoOfMs(n.paused_until)} lang=${lang} /></span>` : t('not_paused')) },
    { key: 'failures', label: t('failures'), numeric: true },
    { key: 'last_error', label: t('last_error'), render: (n) => n.last_error ?? '—' },
  ];
  const purposes = Object.entries(snap.node_calls).map(([purpose, calls]) => ({ purpose, calls }));
  return html`
    <p role="status" class=${health.status === 'stale' ? 'field-error' : ''}>
      ${t(health.status === 'stale' ? 'worker_stale' : 'worker_fresh', { age: health.age_seconds })}
      ${' '}(<${Time} iso=${health.written_at} lang=${lang} />)
    </p>
    <dl class="facts">
      <dt>${t('lag_blocks')}</dt><dd>${snap.scanner.lag_blocks ?? '—'}</dd>
      <dt>${t('lag_seconds')}</dt><dd>${snap.scanner.lag_seconds ?? '—'}</dd>
      ${snap.scanner.chain_mismatch === null ? null : html`<dt>${t('chain_mismatch')}</dt><dd class="field-error">${snap.scanner.chain_mismatch}</dd>`}
    </dl>
    <${Table} columns=${nodeColumns} rows=${snap.nodes} caption=${t('nodes')} rowKey=${(n) => n.node} t=${t} />
    <${Table} columns=${[{ key: 'purpose', label: t('purpose'), render: (p) => t(`purpose_${p.purpose}`) === `purpose_${p.purpose}` ? p.purpose : t(`purpose_${p.purpose}`) }, { key: 'calls', label: t('calls'), numeric: true }]}
      rows=${purposes} caption=${t('calls_by_purpose')} rowKey=${(p) => p.purpose} t=${t} />`;
}

function Screen({ api, t, lang }) {
  const ready = usePoll(({ background }) => api.get('/readyz', undefined, { background }), { intervalMs: 10_000 });
  const worker = usePoll(({ background }) => api.get('/admin/health', undefined, { background }), { intervalMs: 30_000 });
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
    <section aria-labelledby="health-worker">
      <h2 id="health-worker">${t('worker_title')}</h2>
      <${ErrorBanner} error=${worker.error} t=${t} onRetry=${worker.refresh} />
      ${worker.data === undefined ? (worker.loading ? html`<${Loading} t=${t} />` : null) : html`<${WorkerHealth} health=${worker.data} t=${t} lang=${lang} />`}
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
      worker_title: 'Scanner, node calls and rate limits (the worker)',
      worker_none: 'No worker has reported yet: it writes its health every minute once it runs.',
      worker_fresh: 'Reported by the worker {age} s ago', worker_stale: 'Stale: the worker last reported {age} s ago (is it running?)',
      lag_blocks: 'Scanner lag (blocks)', lag_seconds: 'Scanner lag (seconds)', chain_mismatch: 'Scanner stopped',
      nodes: 'Scanner nodes', node: 'Node', calls: 'Calls', budget_left: 'Budget left', no_budget: 'no budget', paused: 'Paused',
      paused_until: 'until', not_paused: 'no', failures: 'Failures (429/403 among them)', last_error: 'Last error',
      calls_by_purpose: 'Node calls since the worker started, by purpose', purpose: 'Purpose',
      purpose_scan: 'Scanning blocks', purpose_plan: 'Planning steps', purpose_follow: 'Following transactions', purpose_broadcast: 'Broadcasting',
    },
    zh: {
      readiness: '就绪状态', checks: '就绪检查', check: '检查项', state: '状态', ok: '正常', failing: '异常',
      all_ready: 'API 及其依赖服务均已就绪。', check_store: '存储', check_locks: '锁', check_chain: 'TRON 节点',
      check_redis: 'Redis', 'check_store-chain': '存储的链标识', 'check_scanner-chain': '余额扫描器',
      worker_title: '扫描器、节点调用与速率限制（worker）',
      worker_none: '尚无 worker 上报：worker 运行后每分钟写入一次状态。',
      worker_fresh: 'worker {age} 秒前上报', worker_stale: '已过期：worker 最后一次上报在 {age} 秒前（它是否在运行？）',
      lag_blocks: '扫描器延迟（区块）', lag_seconds: '扫描器延迟（秒）', chain_mismatch: '扫描器已停止',
      nodes: '扫描节点', node: '节点', calls: '调用次数', budget_left: '剩余额度', no_budget: '无额度限制', paused: '暂停',
      paused_until: '直到', not_paused: '否', failures: '失败次数（含 429/403）', last_error: '最后错误',
      calls_by_purpose: 'worker 启动以来的节点调用（按用途）', purpose: '用途',
      purpose_scan: '扫描区块', purpose_plan: '规划步骤', purpose_follow: '跟踪交易', purpose_broadcast: '广播交易',
    },
  },
  Screen,
};
