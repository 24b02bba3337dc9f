// Security (issue #38 item 1): the member's own two-factor authentication (the shell's enrolment component,
// app/two-factor.js; POST /auth/2fa/disable with the password and a code), the team (GET/POST /members, PATCH and
// DELETE /members/{id}), the withdrawal policy (GET/PUT /policies/withdrawal) and the allow-list (GET/POST/DELETE
// /policies/allow-list), pending changes (GET /policies/changes, approve or cancel), and the audit log (GET /audit-log,
// with the acting member, client address and user agent). Every member sees; only the owner and admins are offered
// the changes (the API's ADMIN_ROLES). A loosening answers 202 with a pending change, which is shown as such.
import { html, useState } from '../lib/html.js';
import { ErrorBanner, Field, Loading, Notice, Pager, Table, Time, useAction } from '../lib/components.js';
import { formatAmount, parseAmount } from '../lib/format.js';
import { usePoll } from '../lib/poll.js';
import { TwoFactorEnrol } from '../two-factor.js';
import { ADMIN_ROLES, ALL_ROLES } from './screen-common.js';

const ASSETS = ['TRX', 'USDT'];
const MEMBER_ROLES = ['admin', 'approver', 'operator', 'viewer'];
/** Roles the shell itself asks to enrol (main.js ROLES_NEEDING_2FA less the owner): its banner holds the form then. */
const BANNER_ROLES = ['admin', 'approver'];

const messages = {
  en: {
    tfa_status: 'Two-factor authentication is {state} for {email}.', on: 'on', off: 'off', disable: 'Turn off two-factor authentication',
    disable_hint: 'Needs your password and a current code (or a recovery code). It waits as a pending change, then turns 2FA off and ends every session, this one too.',
    disabled: 'Two-factor authentication is off. Sign in again.', pending: 'This change waits, unless an admin cancels it first. It takes effect:',
    enrol_above: 'Turn it on with the form at the top of the page.',
    members: 'Members and roles', email: 'Email', role: 'Role', status: 'Status', invited: 'Invited', joined: 'Joined', invitation_expires: 'Invitation expires',
    invite: 'Invite a member', invite_submit: 'Invite', invited_done: 'Invitation sent to {email}.', change_role: 'Change role', remove: 'Remove',
    role_of: 'Role of {email}', removed: '{email} removed.', role_changed: 'Role of {email} changed.', solo: 'Only the owner so far.',
    policy: 'Withdrawal policy', allow_list_only: 'Only pay addresses on the allow-list', asset: 'Asset', max_amount_24h: 'Most in 24 h',
    max_count_1h: 'Most withdrawals in 1 h', approval_threshold: 'Approval above', no_limit: 'no limit', save_policy: 'Save policy',
    policy_saved: 'Policy saved.', limit_hint: 'In units of the asset; empty: no limit.', held: 'New destinations are held until',
    approver_url: 'Approval URL', approver_status: 'Approval URL review', amount_bad: '{field} of {asset}: enter an amount in units with at most 6 decimals.',
    count_bad: 'Most withdrawals in 1 h of {asset}: enter a whole number.',
    allow_list: 'Allow-list', address: 'Address', label: 'Label', active_from: 'Active from', added: 'Added', add: 'Add address',
    added_done: '{address} added; it may be paid from', removed_address: '{address} removed.',
    changes: 'Pending changes', loosens: 'Loosens', requested: 'Requested', effective: 'Takes effect', approve: 'Approve', cancel_change: 'Cancel change',
    no_changes: 'No change is pending.', change_approved: 'Change {id} approved.', change_cancelled: 'Change {id} cancelled.',
    audit: 'Audit log', seq: '#', at: 'Time', action: 'Action', actor: 'Actor', client: 'Client address', agent: 'User agent', detail: 'Detail',
    actions: 'Actions', current_password: 'Password',
  },
  zh: {
    tfa_status: '{email} 的双重验证：{state}。', on: '已开启', off: '未开启', disable: '关闭双重验证',
    disable_hint: '需要您的密码和当前验证码（或恢复码）。它先作为待生效的变更等待，生效后关闭双重验证并结束所有会话，包括当前会话。',
    disabled: '双重验证已关闭，请重新登录。', pending: '此变更需等待，除非管理员先取消。生效时间：',
    enrol_above: '请使用页面顶部的表单开启。',
    members: '成员与角色', email: '邮箱', role: '角色', status: '状态', invited: '邀请时间', joined: '加入时间', invitation_expires: '邀请过期',
    invite: '邀请成员', invite_submit: '邀请', invited_done: '已向 {email} 发送邀请。', change_role: '修改角色', remove: '移除',
    role_of: '{email} 的角色', removed: '已移除 {email}。', role_changed: '{email} 的角色已修改。', solo: '目前只有所有者。',
    policy: '提现策略', allow_list_only: '仅向白名单地址付款', asset: '资产', max_amount_24h: '24 小时上限',
    max_count_1h: '1 小时最多笔数', approval_threshold: '超过此额需审批', no_limit: '无限制', save_policy: '保存策略',
    policy_saved: '策略已保存。', limit_hint: '以资产单位填写；留空表示无限制。', held: '新收款地址暂停至',
    approver_url: '审批地址', approver_status: '审批地址审核', amount_bad: '{asset} 的{field}：请输入最多 6 位小数的金额。',
    count_bad: '{asset} 的 1 小时最多笔数：请输入整数。',
    allow_list: '白名单', address: '地址', label: '标签', active_from: '生效时间', added: '添加时间', add: '添加地址',
    added_done: '已添加 {address}，可付款时间：', removed_address: '已移除 {address}。',
    changes: '待生效的变更', loosens: '放宽项', requested: '申请时间', effective: '生效时间', approve: '批准', cancel_change: '取消变更',
    no_changes: '没有待生效的变更。', change_approved: '变更 {id} 已批准。', change_cancelled: '变更 {id} 已取消。',
    audit: '审计日志', seq: '#', at: '时间', action: '操作', actor: '操作者', client: '客户端地址', agent: 'User agent', detail: '详情',
    actions: '操作', current_password: '密码',
  },
};

/** A pending change answered with 202 (it carries change_id), else null. */
const pendingOf = (answer) => (answer && typeof answer === 'object' && 'change_id' in answer ? answer : null);

function PendingNotice({ t, change, lang }) {
  if (!change) return null;
  return html`<${Notice} kind="warn"><p>${t('pending')} <${Time} iso=${change.effective_at} lang=${lang} /></p>
    <p class="muted"><code>${change.loosens.join(', ')}</code></p></${Notice}>`;
}

function TwoFactor({ api, t, session, lang }) {
  const [enabledHere, setOn] = useState(false);
  // The shell's session is read at sign-in: the state now comes from the session route.
  const { data: now } = usePoll(({ background }) => api.get('/auth/console/session', undefined, { background }), { intervalMs: 60_000 });
  const on = enabledHere || (now?.two_factor_enabled ?? session.two_factor_enabled);
  const [form, setForm] = useState({ password: '', code: '' });
  const [result, setResult] = useState(null);
  const [disable, busy, error] = useAction(async () => {
    const answer = await api.post('/auth/2fa/disable', { password: form.password, code: form.code.trim() });
    setForm({ password: '', code: '' });
    setResult(pendingOf(answer) ?? 'off');
  });
  return html`<section aria-labelledby="tfa-status-title">
    <h2 id="tfa-status-title">${t('tfa_title')}</h2>
    <p data-testid="tfa-state">${t('tfa_status', { email: session.email, state: on ? t('on') : t('off') })}</p>
    ${result === 'off' ? html`<${Notice} kind="success">${t('disabled')}</${Notice}>` : html`<${PendingNotice} t=${t} change=${result} lang=${lang} />`}
    ${!on ? (BANNER_ROLES.includes(session.role) ? html`<p>${t('enrol_above')}</p>` : html`<${TwoFactorEnrol} api=${api} t=${t} onEnabled=${() => setOn(true)} />`) : result === null ? html`
      <form class="card" onSubmit=${(e) => { e.preventDefault(); disable(); }}>
        <h3>${t('disable')}</h3>
        <p class="muted">${t('disable_hint')}</p>
        <${Field} label=${t('current_password')} type="password" autocomplete="current-password" value=${form.password} onInput=${(v) => setForm((f) => ({ ...f, password: v }))} required />
        <${Field} label=${t('code')} inputmode="numeric" autocomplete="one-time-code" value=${form.code} onInput=${(v) => setForm((f) => ({ ...f, code: v }))} required />
        <button type="submit" disabled=${busy}>${t('disable')}</button>
        <${ErrorBanner} error=${error} />
      </form>` : null}
  </section>`;
}

function MemberActions({ api, t, member, lang, onDone }) {
  const [role, setRole] = useState(member.role);
  const [change, changing, changeError] = useAction(async () => {
    const answer = await api.patch(`/members/${member.member_id}`, { role }, { stepUp: true });
    onDone(pendingOf(answer) ?? t('role_changed', { email: member.email }));
  });
  const [remove, removing, removeError] = useAction(async () => {
    await api.del(`/members/${member.member_id}`, undefined, { stepUp: true });
    onDone(t('removed', { email: member.email }));
  });
  return html`<div>
    <form class="actions" onSubmit=${(e) => { e.preventDefault(); change(); }}>
      <${Field} as="select" label=${t('role_of', { email: member.email })} value=${role} onInput=${setRole} options=${MEMBER_ROLES.map((r) => ({ value: r, label: t(`role_${r}`) }))} />
      <button type="submit" disabled=${changing || role === member.role}>${t('change_role')}</button>
      <button type="button" disabled=${removing} onClick=${() => remove()} aria-label=${`${t('remove')} ${member.email}`}>${t('remove')}</button>
    </form>
    <${ErrorBanner} error=${changeError ?? removeError} />
  </div>`;
}

function Members({ api, t, lang, admin, members, refresh }) {
  const [form, setForm] = useState({ email: '', role: 'viewer' });
  const [notice, setNotice] = useState(null);
  const done = (what) => { setNotice(what); refresh(); };
  const [invite, busy, error] = useAction(async () => {
    const answer = await api.post('/members', { email: form.email.trim(), role: form.role }, { stepUp: true });
    done(pendingOf(answer) ?? t('invited_done', { email: form.email.trim() }));
    setForm({ email: '', role: 'viewer' });
  });
  return html`<section aria-labelledby="members-title">
    <h2 id="members-title">${t('members')}</h2>
    ${typeof notice === 'string' ? html`<${Notice} kind="success">${notice}</${Notice}>` : html`<${PendingNotice} t=${t} change=${notice} lang=${lang} />`}
    ${members.error ? html`<${ErrorBanner} error=${members.error} />` : members.value.items.length === 0 ? html`<p class="muted">${t('solo')}</p>` : html`
      <${Table} t=${t} caption=${t('members')} captionHidden=${true} rows=${members.value.items} rowKey=${(m) => m.member_id} columns=${[
        { key: 'email', label: t('email') },
        { key: 'role', label: t('role'), render: (m) => t(`role_${m.role}`) },
        { key: 'status', label: t('status') },
        { key: 'invited_at', label: t('invited'), render: (m) => html`<${Time} iso=${m.invited_at} lang=${lang} />` },
        { key: 'joined_at', label: t('joined'), render: (m) => (m.joined_at ? html`<${Time} iso=${m.joined_at} lang=${lang} />` : html`${t('invitation_expires')}: <${Time} iso=${m.invitation_expires_at} lang=${lang} />`) },
        ...(admin ? [{ key: 'actions', label: t('actions'), render: (m) => html`<${MemberActions} api=${api} t=${t} member=${m} lang=${lang} onDone=${done} />` }] : []),
      ]} />`}
    ${admin ? html`<form class="card" onSubmit=${(e) => { e.preventDefault(); invite(); }}>
      <h3>${t('invite')}</h3>
      <${Field} label=${t('email')} type="email" value=${form.email} onInput=${(v) => setForm((f) => ({ ...f, email: v }))} required autocomplete="off" />
      <${Field} as="select" label=${t('role')} value=${form.role} onInput=${(v) => setForm((f) => ({ ...f, role: v }))} options=${MEMBER_ROLES.map((r) => ({ value: r, label: t(`role_${r}`) }))} />
      <button type="submit" class="primary" disabled=${busy}>${t('invite_submit')}</button>
      <${ErrorBanner} error=${error} />
    </form>` : null}
  </section>`;
}

const LIMIT_FIELDS = ['max_amount_24h', 'max_count_1h', 'approval_threshold'];

/** The policy's limits as the form's texts (units), and back. */
function limitsToForm(limits) {
  return Object.fromEntries(ASSETS.map((asset) => [asset, Object.fromEntries(LIMIT_FIELDS.map((f) => {
    const v = limits?.[asset]?.[f];
    if (v === null || v === undefined) return [f, ''];
    return [f, f === 'max_count_1h' ? String(v) : formatAmount(v, asset, { withAsset: false }).replace(/,/g, '')];
  }))]));
}

function formToLimits(form, t) {
  const limits = {};
  for (const asset of ASSETS) {
    const row = {};
    for (const f of LIMIT_FIELDS) {
      const text = form[asset][f].trim();
      if (text === '') { row[f] = null; continue; }
      if (f === 'max_count_1h') {
        if (!/^[0-9]+$/.test(text)) throw new Error(t('count_bad', { asset }));
        row[f] = Number(text);
      } else {
        const amount = parseAmount(text, asset);
        if (amount === null) throw new Error(t('amount_bad', { field: t(f), asset }));
        row[f] = amount;
      }
    }
    if (LIMIT_FIELDS.some((f) => row[f] !== null)) limits[asset] = row;
  }
  return limits;
}

function Policy({ api, t, lang, admin, policy, refresh }) {
  const [edit, setEdit] = useState(null);
  const [notice, setNotice] = useState(null);
  const p = policy.value;
  const form = edit ?? (p ? { allowListOnly: p.allow_list_only, limits: limitsToForm(p.limits) } : null);
  const [save, busy, error] = useAction(async () => {
    const limits = formToLimits(form.limits, t);
    const answer = await api.put('/policies/withdrawal', { allow_list_only: form.allowListOnly, limits }, { stepUp: true });
    setEdit(null);
    setNotice(pendingOf(answer) ?? t('policy_saved'));
    refresh();
  });
  if (policy.error) return html`<section aria-labelledby="policy-title"><h2 id="policy-title">${t('policy')}</h2><${ErrorBanner} error=${policy.error} /></section>`;
  const setLimit = (asset, f) => (v) => setEdit({ ...form, limits: { ...form.limits, [asset]: { ...form.limits[asset], [f]: v } } });
  return html`<section aria-labelledby="policy-title">
    <h2 id="policy-title">${t('policy')}</h2>
    ${typeof notice === 'string' ? html`<${Notice} kind="success">${notice}</${Notice}>` : html`<${PendingNotice} t=${t} change=${notice} lang=${lang} />`}
    ${p.new_destinations_held_until ? html`<${Notice} kind="warn">${t('held')} <${Time} iso=${p.new_destinations_held_until} lang=${lang} /></${Notice}>` : null}
    <p>${t('approver_status')}: ${p.approval?.status ?? '—'}${p.approval_url ? html` <code>${p.approval_url}</code>` : null}</p>
    <form class="card" onSubmit=${(e) => { e.preventDefault(); save(); }}>
      <div><label><input type="checkbox" checked=${form.allowListOnly} disabled=${!admin} onChange=${(e) => setEdit({ ...form, allowListOnly: e.currentTarget.checked })} /> ${t('allow_list_only')}</label></div>
      <p class="muted">${t('limit_hint')}</p>
      ${ASSETS.map((asset) => html`<fieldset>
        <legend>${asset}</legend>
        ${LIMIT_FIELDS.map((f) => html`<${Field} label=${`${t(f)} (${asset})`} value=${form.limits[asset][f]} onInput=${setLimit(asset, f)} inputmode=${f === 'max_count_1h' ? 'numeric' : 'decimal'} readonly=${!admin} placeholder=${t('no_limit')} />`)}
      </fieldset>`)}
      ${admin ? html`<button type="submit" class="primary" disabled=${busy}>${t('save_policy')}</button>` : null}
      <${ErrorBanner} error=${error} />
    </form>
  </section>`;
}

function AllowList({ api, t, lang, admin }) {
  const [page, setPage] = useState(1);
  const { data, error, refresh } = usePoll(({ background }) => api.get('/policies/allow-list', { page, per_page: 20 }, { background }), { deps: [page], intervalMs: 30_000 });
  const [form, setForm] = useState({ address: '', label: '' });
  const [notice, setNotice] = useState(null);
  const [add, adding, addError] = useAction(async () => {
    const entry = await api.post('/policies/allow-list', { address: form.address.trim(), label: form.label.trim() || null }, { stepUp: true });
    setNotice(html`${t('added_done', { address: entry.address })} <${Time} iso=${entry.active_from} lang=${lang} />`);
    setForm({ address: '', label: '' });
    refresh();
  });
  const [remove, , removeError] = useAction(async (address) => {
    await api.del(`/policies/allow-list/${encodeURIComponent(address)}`, undefined, { stepUp: true });
    setNotice(t('removed_address', { address }));
    refresh();
  });
  return html`<section aria-labelledby="allow-title">
    <h2 id="allow-title">${t('allow_list')}</h2>
    ${notice ? html`<${Notice} kind="success">${notice}</${Notice}>` : null}
    <${ErrorBanner} error=${error ?? removeError} />
    ${data === undefined ? (error ? null : html`<${Loading} t=${t} />`) : html`
      <${Table} t=${t} caption=${t('allow_list')} captionHidden=${true} rows=${data.items} rowKey=${(e) => e.address} columns=${[
        { key: 'address', label: t('address'), render: (e) => html`<code>${e.address}</code>` },
        { key: 'label', label: t('label'), render: (e) => e.label ?? '' },
        { key: 'created_at', label: t('added'), render: (e) => html`<${Time} iso=${e.created_at} lang=${lang} />` },
        { key: 'active_from', label: t('active_from'), render: (e) => html`<${Time} iso=${e.active_from} lang=${lang} />` },
        ...(admin ? [{ key: 'actions', label: t('actions'), render: (e) => html`<button type="button" onClick=${() => remove(e.address)} aria-label=${`${t('remove')} ${e.address}`}>${t('remove')}</button>` }] : []),
      ]} />
      <${Pager} page=${page} pages=${data.pagination?.pages} onPage=${setPage} t=${t} />`}
    ${admin ? html`<form class="card" onSubmit=${(e) => { e.preventDefault(); add(); }}>
      <h3>${t('add')}</h3>
      <${Field} label=${t('address')} value=${form.address} onInput=${(v) => setForm((f) => ({ ...f, address: v }))} required spellcheck="false" autocomplete="off" />
      <${Field} label=${t('label')} value=${form.label} onInput=${(v) => setForm((f) => ({ ...f, label: v }))} maxlength="120" />
      <button type="submit" class="primary" disabled=${adding}>${t('add')}</button>
      <${ErrorBanner} error=${addError} />
    </form>` : null}
  </section>`;
}

function ChangeActions({ api, t, change, onDone }) {
  const [act, busy, error] = useAction(async (what) => {
    await api.post(`/policies/changes/${encodeURIComponent(change.change_id)}/${what}`, {}, what === 'approve' ? { stepUp: true } : {});
    onDone(t(what === 'approve' ? 'change_approved' : 'change_cancelled', { id: change.change_id }));
  });
  return html`<div>
    <div class="actions">
      <button type="button" disabled=${busy} onClick=${() => act('approve')} aria-label=${`${t('approve')} ${change.change_id}`}>${t('approve')}</button>
      <button type="button" disabled=${busy} onClick=${() => act('cancel')} aria-label=${`${t('cancel_change')} ${change.change_id}`}>${t('cancel_change')}</button>
    </div>
    <${ErrorBanner} error=${error} />
  </div>`;
}

function Changes({ api, t, lang, admin, changes, refresh }) {
  const [notice, setNotice] = useState(null);
  const done = (text) => { setNotice(text); refresh(); };
  return html`<section aria-labelledby="changes-title">
    <h2 id="changes-title">${t('changes')}</h2>
    ${notice ? html`<${Notice} kind="success">${notice}</${Notice}>` : null}
    ${changes.error ? html`<${ErrorBanner} error=${changes.error} />` : changes.value.items.length === 0 ? html`<p class="muted">${t('no_changes')}</p>` : html`
      <${Table} t=${t} caption=${t('changes')} captionHidden=${true} rows=${changes.value.items} rowKey=${(c) => c.change_id} columns=${[
        { key: 'change_id', label: '#' },
        { key: 'loosens', label: t('loosens'), render: (c) => html`<code>${c.loosens.join(', ')}</code>` },
        { key: 'requested_at', label: t('requested'), render: (c) => html`<${Time} iso=${c.requested_at} lang=${lang} />` },
        { key: 'effective_at', label: t('effective'), render: (c) => html`<${Time} iso=${c.effective_at} lang=${lang} />` },
        { key: 'status', label: t('status') },
        ...(admin ? [{ key: 'actions', label: t('actions'), render: (c) => html`<${ChangeActions} api=${api} t=${t} change=${c} onDone=${done} />` }] : []),
      ]} />`}
  </section>`;
}

function AuditLog({ api, t, lang, members, session, version }) {
  const [page, setPage] = useState(1);
  // Read again after every change made on this screen (version), and every 15 s.
  const { data, error } = usePoll(({ background }) => api.get('/audit-log', { page, per_page: 20 }, { background }), { deps: [page, version], intervalMs: 15_000 });
  // Members by their user id; the account's own user (the session's user_id) is the owner.
  const emails = new Map((members.value?.items ?? []).filter((m) => m.user_id !== null).map((m) => [String(m.user_id), m.email]));
  emails.set(String(session.user_id), session.role === 'owner' ? `${session.email} (${t('role_owner')})` : t('role_owner'));
  const actor = (a) => (a.kind === 'user' && a.id !== null && emails.has(a.id) ? emails.get(a.id) : `${a.kind}${a.id === null ? '' : ` ${a.id}`}`);
  const rest = (detail) => Object.entries(detail).filter(([k]) => k !== 'client_address' && k !== 'user_agent').map(([k, v]) => `${k}: ${v}`).join('; ');
  return html`<section aria-labelledby="audit-title">
    <h2 id="audit-title">${t('audit')}</h2>
    <${ErrorBanner} error=${error} />
    ${data === undefined ? (error ? null : html`<${Loading} t=${t} />`) : html`
      <${Table} t=${t} caption=${t('audit')} captionHidden=${true} rows=${data.items} rowKey=${(e) => e.seq} columns=${[
        { key: 'seq', label: t('seq'), numeric: true },
        { key: 'at', label: t('at'), render: (e) => html`<${Time} iso=${e.at} lang=${lang} />` },
        { key: 'action', label: t('action'), render: (e) => html`<code>${e.action}</code>` },
        { key: 'actor', label: t('actor'), render: (e) => actor(e.actor) },
        { key: 'client', label: t('client'), render: (e) => e.detail.client_address ?? '' },
        { key: 'agent', label: t('agent'), render: (e) => html`<span class="muted">${e.detail.user_agent ?? ''}</span>` },
        { key: 'detail', label: t('detail'), render: (e) => html`<small>${rest(e.detail)}</small>` },
      ]} />
      <${Pager} page=${page} pages=${data.pagination?.pages} onPage=${setPage} t=${t} />`}
  </section>`;
}

const settle = (promise) => promise.then((value) => ({ value }), (error) => ({ error }));

function Security(props) {
  const { api, t, session } = props;
  const admin = ADMIN_ROLES.includes(session.role);
  const [version, setVersion] = useState(0);
  const { data, error, refresh: reload } = usePoll(async ({ background }) => {
    const [members, policy, changes] = await Promise.all([
      settle(api.get('/members', undefined, { background })),
      settle(api.get('/policies/withdrawal', undefined, { background })),
      settle(api.get('/policies/changes', undefined, { background })),
    ]);
    return { members, policy, changes };
  }, { intervalMs: 15_000 });
  const refresh = () => { setVersion((v) => v + 1); reload(); };
  return html`
    <${TwoFactor} ...${props} />
    ${data === undefined ? (error ? html`<${ErrorBanner} error=${error} />` : html`<${Loading} t=${t} />`) : html`
      <${Members} ...${props} admin=${admin} members=${data.members} refresh=${refresh} />
      <${Changes} ...${props} admin=${admin} changes=${data.changes} refresh=${refresh} />
      <${Policy} ...${props} admin=${admin} policy=${data.policy} refresh=${refresh} />
      <${AllowList} ...${props} admin=${admin} />
      <${AuditLog} ...${props} members=${data.members} version=${version} />`}`;
}

export default { id: 'security', path: '/security', roles: ALL_ROLES, title: { en: 'Security', zh: '安全' }, messages, Screen: Security };
