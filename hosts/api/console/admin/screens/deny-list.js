// The risk deny-list (issue #38 item 2): GET/POST /api/admin/risk/deny and DELETE /api/admin/risk/deny/:kind/:value.
// A user id or an address on it is refused for withdrawals; adding one that exists replaces its reason.
import { html, useState } from '../../app/lib/html.js';
import { ErrorBanner, Field, Loading, Notice, Table, useAction } from '../../app/lib/components.js';
import { usePoll } from '../../app/lib/poll.js';

function RemoveButton({ entry, api, t, onDone }) {
  const [remove, busy, error] = useAction(async () => {
    await api.del(`/admin/risk/deny/${encodeURIComponent(entry.kind)}/${encodeURIComponent(entry.value)}`);
    onDone(t('removed', { value: entry.value }));
  });
  return html`<button type="button" disabled=${busy} aria-label=${t('remove_label', { value: entry.value })} onClick=${() => remove()}>${t('remove')}</button>
    ${error ? html`<span class="field-error" role="alert">${error.message}</span>` : null}`;
}

function Screen({ api, t }) {
  const [kind, setKind] = useState('address');
  const [value, setValue] = useState('');
  const [reason, setReason] = useState('');
  const [notice, setNotice] = useState(null);
  const list = usePoll(({ background }) => api.get('/admin/risk/deny', undefined, { background }), { intervalMs: 30_000 });
  const done = (text) => { setNotice(text); list.refresh(); };
  const [add, adding, addError] = useAction(async () => {
    await api.post('/admin/risk/deny', { kind, value: value.trim(), ...(reason.trim() === '' ? {} : { reason: reason.trim() }) });
    setValue('');
    setReason('');
    done(t('added', { value: value.trim() }));
  });
  const columns = [
    { key: 'kind', label: t('kind'), render: (r) => t(`kind_${r.kind}`) },
    { key: 'value', label: t('value'), render: (r) => html`<code>${r.value}</code>` },
    { key: 'reason', label: t('reason'), render: (r) => r.reason ?? '—' },
    { key: 'actions', label: t('actions'), render: (r) => html`<${RemoveButton} entry=${r} api=${api} t=${t} onDone=${done} />` },
  ];
  return html`
    ${notice ? html`<${Notice} kind="success"><p>${notice}</p></${Notice}>` : null}
    <${ErrorBanner} error=${list.error} t=${t} onRetry=${list.refresh} />
    ${list.data === undefined ? (list.loading ? html`<${Loading} t=${t} />` : null)
      : html`<${Table} columns=${columns} rows=${list.data} caption=${t('entries')} rowKey=${(r) => `${r.kind}:${r.value}`} t=${t} />`}
    <form class="card narrow" aria-labelledby="deny-add" onSubmit=${(e) => { e.preventDefault(); add(); }}>
      <h2 id="deny-add">${t('add_title')}</h2>
      <${ErrorBanner} error=${addError} />
      <${Field} label=${t('kind')} as="select" value=${kind} onInput=${setKind}
        options=${[{ value: 'address', label: t('kind_address') }, { value: 'user', label: t('kind_user') }]} />
      <${Field} label=${t('value')} hint=${t('value_hint')} value=${value} onInput=${setValue} required autocomplete="off" />
      <${Field} label=${t('reason')} value=${reason} onInput=${setReason} autocomplete="off" />
      <div class="actions"><button type="submit" class="primary" disabled=${adding}>${t('add')}</button></div>
    </form>`;
}

export default {
  id: 'deny-list',
  path: '/deny-list',
  title: { en: 'Deny-list', zh: '拒绝名单' },
  messages: {
    en: {
      entries: 'Entries', kind: 'Kind', value: 'Value', reason: 'Reason', actions: 'Actions', kind_address: 'Address', kind_user: 'User',
      value_hint: 'A TRON address (T…) or a user id.', add_title: 'Add an entry', add: 'Add to the deny-list', remove: 'Remove',
      remove_label: 'Remove {value} from the deny-list', added: '{value} is on the deny-list.', removed: '{value} was removed from the deny-list.',
    },
    zh: {
      entries: '条目', kind: '类型', value: '值', reason: '原因', actions: '操作', kind_address: '地址', kind_user: '用户',
      value_hint: 'TRON 地址（T…）或用户 ID。', add_title: '添加条目', add: '加入拒绝名单', remove: '移除',
      remove_label: '从拒绝名单移除 {value}', added: '{value} 已加入拒绝名单。', removed: '{value} 已从拒绝名单移除。',
    },
  },
  Screen,
};
