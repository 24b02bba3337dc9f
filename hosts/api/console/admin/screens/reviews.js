// URL reviews (issue #38 item 2): the webhook URLs (GET /api/admin/webhooks/pending) and approval URLs
// (GET /api/admin/approval-urls/pending) waiting for the operator, each with the exact URL (and the approval URL's
// secret fingerprint). Approving sends back exactly what is shown ({url} / {url, secret_fingerprint}): if the merchant
// changed it meanwhile the API answers 409 REVIEW-STALE, shown as it is. Rejecting needs a note.
import { html, useState } from '../../app/lib/html.js';
import { ErrorBanner, EmptyState, Field, Loading, Notice, Time, useAction } from '../../app/lib/components.js';
import { usePoll } from '../../app/lib/poll.js';

function Review({ kind, item, api, t, lang, onDone }) {
  const [note, setNote] = useState('');
  const base = kind === 'webhook' ? '/admin/webhooks' : '/admin/approval-urls';
  const subject = t(kind === 'webhook' ? 'webhook_of' : 'approval_of', { user: item.user_id });
  const [approve, approving, approveError] = useAction(async () => {
    const body = kind === 'webhook' ? { url: item.pending_url } : { url: item.pending_url, secret_fingerprint: item.secret_fingerprint };
    await api.post(`${base}/${item.user_id}/approve`, body);
    onDone(t('approved', { subject }));
  });
  const [reject, rejecting, rejectError] = useAction(async () => {
    await api.post(`${base}/${item.user_id}/reject`, { note: note.trim() });
    onDone(t('rejected', { subject }));
  });
  const headingId = `review-${kind}-${item.user_id}`;
  return html`<section class="card" aria-labelledby=${headingId}>
    <h3 id=${headingId}>${subject}</h3>
    <dl class="facts">
      <dt>${t('pending_url')}</dt><dd><code>${item.pending_url}</code></dd>
      ${kind === 'approval' ? html`<dt>${t('fingerprint')}</dt><dd><code>${item.secret_fingerprint ?? '—'}</code></dd>` : null}
      <dt>${t('since')}</dt><dd><${Time} iso=${item.pending_since} lang=${lang} /></dd>
      <dt>${t('current_url')}</dt><dd>${item.url ? html`<code>${item.url}</code>` : t('none')}</dd>
    </dl>
    <${ErrorBanner} error=${approveError ?? rejectError} />
    <div class="actions">
      <button type="button" class="primary" disabled=${approving} aria-label=${t('approve_label', { subject })} onClick=${() => approve()}>${t('approve')}</button>
    </div>
    <form class="reject" onSubmit=${(e) => { e.preventDefault(); reject(); }}>
      <${Field} label=${t('note_label', { subject })} value=${note} onInput=${setNote} required maxlength="500" />
      <button type="submit" disabled=${rejecting}>${t('reject')}</button>
    </form>
  </section>`;
}

function ReviewList({ kind, path, api, t, lang }) {
  const [notice, setNotice] = useState(null);
  const list = usePoll(({ background }) => api.get(path, undefined, { background }), { intervalMs: 15_000 });
  const done = (text) => { setNotice(text); list.refresh(); };
  const headingId = `reviews-${kind}`;
  return html`<section aria-labelledby=${headingId}>
    <h2 id=${headingId}>${t(kind === 'webhook' ? 'webhook_urls' : 'approval_urls')}</h2>
    ${notice ? html`<${Notice} kind="success"><p>${notice}</p></${Notice}>` : null}
    <${ErrorBanner} error=${list.error} t=${t} onRetry=${list.refresh} />
    ${list.data === undefined ? (list.loading ? html`<${Loading} t=${t} />` : null)
      : list.data.length === 0 ? html`<${EmptyState}>${t('nothing_pending')}</${EmptyState}>`
        : list.data.map((item) => html`<${Review} key=${`${item.user_id}-${item.pending_url}`} kind=${kind} item=${item} api=${api} t=${t} lang=${lang} onDone=${done} />`)}
  </section>`;
}

function Screen({ api, t, lang }) {
  return html`<p class="muted">${t('intro')}</p>
    <${ReviewList} kind="webhook" path="/admin/webhooks/pending" api=${api} t=${t} lang=${lang} />
    <${ReviewList} kind="approval" path="/admin/approval-urls/pending" api=${api} t=${t} lang=${lang} />`;
}

export default {
  id: 'reviews',
  path: '/reviews',
  title: { en: 'URL reviews', zh: 'URL 审核' },
  messages: {
    en: {
      intro: 'Approve a URL only as shown here: approving sends exactly this URL (and fingerprint); if the merchant changed it since, the API refuses.',
      webhook_urls: 'Webhook URLs', approval_urls: 'Approval URLs', nothing_pending: 'Nothing waiting for review.',
      webhook_of: 'Webhook URL of user {user}', approval_of: 'Approval URL of user {user}', pending_url: 'URL to review',
      fingerprint: 'Secret fingerprint', since: 'Waiting since', current_url: 'URL in use', none: 'none',
      approve: 'Approve', approve_label: 'Approve the {subject}', reject: 'Reject', note_label: 'Note for rejecting the {subject}',
      approved: 'Approved: {subject}.', rejected: 'Rejected: {subject}.',
    },
    zh: {
      intro: '请按此处显示的内容审批：批准时会发送完全相同的 URL（及指纹）；若商户期间已更改，API 将拒绝。',
      webhook_urls: 'Webhook URL', approval_urls: '审批 URL', nothing_pending: '没有待审核的内容。',
      webhook_of: '用户 {user} 的 Webhook URL', approval_of: '用户 {user} 的审批 URL', pending_url: '待审核 URL',
      fingerprint: '密钥指纹', since: '等待开始时间', current_url: '当前使用的 URL', none: '无',
      approve: '批准', approve_label: '批准{subject}', reject: '拒绝', note_label: '拒绝{subject}的备注',
      approved: '已批准：{subject}。', rejected: '已拒绝：{subject}。',
    },
  },
  Screen,
};
