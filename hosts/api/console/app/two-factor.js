// Two-factor enrolment (issue #38 item 3), for the shell's banner and the Security screen: POST /auth/2fa/setup gives
// the otpauth URI and its QR code as SVG (shown as an image from a data: URL, which the CSP allows for images); POST
// /auth/2fa/enable with the password and a current code (issue #35) turns it on and answers the recovery codes, shown once.
import { html, useState } from './lib/html.js';
import { ErrorBanner, Field, Notice, useAction } from './lib/components.js';

export function TwoFactorEnrol({ api, t, onEnabled }) {
  const [setup, setSetup] = useState(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [recovery, setRecovery] = useState(null);
  const [start, starting, startError] = useAction(async () => setSetup(await api.post('/auth/2fa/setup', {})));
  const [enable, enabling, enableError] = useAction(async () => {
    const answer = await api.post('/auth/2fa/enable', { password, code: code.trim() });
    setRecovery(answer.recovery_codes);
  });
  if (recovery !== null) {
    return html`<section class="card" aria-labelledby="tfa-title">
      <h2 id="tfa-title">${t('tfa_title')}</h2>
      <${Notice} kind="success">${t('tfa_on')}</${Notice}>
      <p>${t('tfa_recovery')}</p>
      <ul class="codes">${recovery.map((c) => html`<li><code>${c}</code></li>`)}</ul>
      <button type="button" class="primary" onClick=${() => onEnabled?.()}>${t('tfa_done')}</button>
    </section>`;
  }
  const secret = setup === null ? null : new URL(setup.otpauth_uri).searchParams.get('secret');
  return html`<section class="card" aria-labelledby="tfa-title">
    <h2 id="tfa-title">${t('tfa_title')}</h2>
    <${ErrorBanner} error=${startError ?? enableError} />
    ${setup === null
      ? html`<button type="button" class="primary" disabled=${starting} onClick=${() => start()}>${t('tfa_start')}</button>`
      : html`<form onSubmit=${(e) => { e.preventDefault(); enable(); }}>
          <p>${t('tfa_scan')}</p>
          <img class="qr" width="200" height="200" alt=${t('tfa_qr_alt')} src=${`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qr_svg)}`} />
          <p>${t('tfa_key')}: <code class="secret">${secret}</code></p>
          <${Field} label=${t('password')} type="password" autocomplete="current-password" value=${password} onInput=${setPassword} required />
          <${Field} label=${t('code')} inputmode="numeric" autocomplete="one-time-code" value=${code} onInput=${setCode} required />
          <button type="submit" class="primary" disabled=${enabling}>${t('tfa_enable')}</button>
        </form>`}
  </section>`;
}
