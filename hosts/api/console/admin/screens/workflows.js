// Failed and stuck workflows (issue #38 item 2): GET /api/admin/workflows/failed, the FAILED commands and collection
// tasks of every account with their last error, and the collection tasks per status (those neither DONE nor FAILED are
// in flight). A command still PENDING or RUNNING with nothing broadcast can be cancelled by its number
// (POST /api/admin/commands/:commandNo/cancel); the API refuses any other, and the screen shows its message.
import { html, useState } from '../../app/lib/html.js';
import { ErrorBanner, Field, Loading, Notice, Table, Time, useAction } from '../../app/lib/components.js';
import { usePoll } from '../../app/lib/poll.js';

const WINDOWS = ['1', '7', '30'];
const DONE_OR_FAILED = new Set(['DONE', 'FAILED']);

function CancelForm({ api, t }) {
  const [commandNo, setCommandNo] = useState('');
  const [notice, setNotice] = useState(null);
  const [cancel, busy, error] = useAction(async () => {
    setNotice(null);
    const command = await api.post(`/admin/commands/${encodeURIComponent(commandNo.trim())}/cancel`);
    setNotice(t('cancelled', { command: command.command_no }));
    setCommandNo('');
  });
  return html`<form class="card narrow" aria-labelledby="wf-cancel" onSubmit=${(e) => { e.preventDefault(); cancel(); }}>
    <h2 id="wf-cancel">${t('cancel_title')}</h2>
    <p class="muted">${t('cancel_text')}</p>
    ${notice ? html`<${Notice} kind="success"><p>${notice}</p></${Notice}>` : null}
    <${ErrorBanner} error=${error} />
    <${Field} label=${t('command_no')} value=${commandNo} onInput=${setCommandNo} required autocomplete="off" />
    <div class="actions"><button type="submit" disabled=${busy}>${t('cancel_command')}</button></div>
  </form>`;
}

function Screen({ api, t, lang }) {
  const [days, setDays] = useState('7');
  const list = usePoll(({ background }) => api.get('/admin/workflows/failed', { days }, { background }), { intervalMs: 30_000, deps: [days] });
  const columns = [
    { key: 'finished_at', label: t('finished'), render: (r) => html`<${Time} iso=${r.finished_at} lang=${lang} />` },
    { key: 'user_id', label: t('account'), numeric: true },
    { key: 'type', label: t('type') },
    { key: 'id', label: t('number'), render: (r) => html`<code>${r.id}</code>` },
    { key: 'error_code', label: t('error_code'), render: (r) => (r.error_code ? html`<code>${r.error_code}</code>` : '—') },
    { key: 'last_error', label: t('last_error'), render: (r) => html`<span class="last-error">${r.last_error ?? '—'}</span>` },
  ];
  const counts = list.data ? Object.entries(list.data.collections_by_status).map(([status, count]) => ({ status, count })) : [];
  return html`
    <${Field} label=${t('window')} as="select" value=${days} onInput=${setDays}
      options=${WINDOWS.map((d) => ({ value: d, label: t('last_days', { days: d }) }))} />
    <${ErrorBanner} error=${list.error} t=${t} onRetry=${list.refresh} />
    ${list.data === undefined ? (list.loading ? html`<${Loading} t=${t} />` : null) : html`
      <section aria-labelledby="wf-failed">
        <h2 id="wf-failed">${t('failed_title')}</h2>
        ${list.data.truncated ? html`<p class="muted">${t('truncated')}</p>` : null}
        <${Table} columns=${columns} rows=${list.data.items} caption=${t('failed_caption')} captionHidden=${true} rowKey=${(r) => `${r.kind}:${r.id}`} t=${t} />
      </section>
      <section aria-labelledby="wf-flight">
        <h2 id="wf-flight">${t('flight_title')}</h2>
        <${Table} caption=${t('flight_caption')} captionHidden=${true} rows=${counts} rowKey=${(r) => r.status} t=${t} columns=${[
          { key: 'status', label: t('status'), render: (r) => html`${r.status}${DONE_OR_FAILED.has(r.status) ? '' : html` <span class="muted">(${t('in_flight')})</span>`}` },
          { key: 'count', label: t('count'), numeric: true },
        ]} />
      </section>`}
    <${CancelForm} api=${api} t=${t} />`;
}

export default {
  id: 'workflows',
  path: '/workflows',
  title: { en: 'Failed workflows', zh: '失败的工作流' },
  messages: {
    en: {
      window: 'Period', last_days: 'Last {days} days', failed_title: 'Failed commands and collections', failed_caption: 'Failed workflows, newest first',
      finished: 'Finished', account: 'Account', type: 'Type', number: 'Number', error_code: 'Error code', last_error: 'Last error',
      truncated: 'Only the first 100 of a kind are shown: narrow the period to see the rest.',
      flight_title: 'Collections by status', flight_caption: 'Collection tasks of every account by status', status: 'Status', count: 'Tasks',
      in_flight: 'in flight', cancel_title: 'Cancel a stuck command',
      cancel_text: 'Only a command that is still pending or running with nothing broadcast can be cancelled; its held amount is released.',
      command_no: 'Command number', cancel_command: 'Cancel the command', cancelled: 'Command {command} is cancelled.',
    },
    zh: {
      window: '时间范围', last_days: '最近 {days} 天', failed_title: '失败的指令与归集', failed_caption: '失败的工作流（最新在前）',
      finished: '结束时间', account: '账户', type: '类型', number: '编号', error_code: '错误码', last_error: '最后错误',
      truncated: '每类仅显示前 100 条：请缩小时间范围查看其余。',
      flight_title: '归集任务状态', flight_caption: '所有账户的归集任务（按状态）', status: '状态', count: '任务数',
      in_flight: '进行中', cancel_title: '取消卡住的指令',
      cancel_text: '只有仍处于待处理或执行中、且尚未广播的指令才能取消；其冻结金额将被释放。',
      command_no: '指令编号', cancel_command: '取消该指令', cancelled: '指令 {command} 已取消。',
    },
  },
  Screen,
};
