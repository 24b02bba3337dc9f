// Signing in (issue #38 item 3): the form with the fixed names "Email", "Password", "Authentication code" and "Sign in";
// accepting a team invitation (POST /auth/register with invitation_code); creating an account (register, then the
// mailed code). Every failure shows the API's message.
import { html, useState } from './lib/html.js';
import { ErrorBanner, Field, Notice, useAction } from './lib/components.js';

function SignInForm({ api, t, onSignedIn, notice, setMode }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [run, busy, error] = useAction(async () => {
    const body = { email, password, ...(code.trim() === '' ? {} : { code: code.trim() }) };
    onSignedIn(await api.post('/auth/console/session', body));
  });
  return html`<form class="card narrow" onSubmit=${(e) => { e.preventDefault(); run(); }}>
    ${notice ? html`<${Notice} kind="success">${notice}</${Notice}>` : null}
    <${ErrorBanner} error=${error} />
    <${Field} label=${t('email')} type="email" autocomplete="username" value=${email} onInput=${setEmail} required />
    <${Field} label=${t('password')} type="password" autocomplete="current-password" value=${password} onInput=${setPassword} required />
    <${Field} label=${t('code')} hint=${t('code_hint')} inputmode="numeric" autocomplete="one-time-code" value=${code} onInput=${setCode} />
    <div class="actions"><button type="submit" class="primary" disabled=${busy}>${t('sign_in')}</button></div>
    <p class="links">
      <button type="button" class="link" onClick=${() => setMode('invitation')}>${t('have_invitation')}</button>
      <button type="button" class="link" onClick=${() => setMode('register')}>${t('create_account')}</button>
    </p>
  </form>`;
}

function InvitationForm({ api, t, done, setMode }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [invitation, setInvitation] = useState('');
  const [run, busy, error] = useAction(async () => {
    await api.post('/auth/register', { email, password, invitation_code: invitation.trim() });
    done(t('invitation_done'));
  });
  return html`<form class="card narrow" onSubmit=${(e) => { e.preventDefault(); run(); }}>
    <h2>${t('have_invitation')}</h2>
    <${ErrorBanner} error=${error} />
    <${Field} label=${t('email')} type="email" autocomplete="username" value=${email} onInput=${setEmail} required />
    <${Field} label=${t('password')} type="password" autocomplete="new-password" minlength="8" value=${password} onInput=${setPassword} required />
    <${Field} label=${t('invitation_code')} autocomplete="off" value=${invitation} onInput=${setInvitation} required />
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>${t('accept_invitation')}</button>
      <button type="button" onClick=${() => setMode('sign-in')}>${t('back_to_sign_in')}</button>
    </div>
  </form>`;
}

function RegisterForm({ api, t, done, setMode }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [sent, setSent] = useState(false);
  const [run, busy, error] = useAction(async () => {
    if (!sent) {
      await api.post('/auth/register', { email, password });
      setSent(true);
    } else {
      await api.post('/auth/verify', { email, code: code.trim(), password });
      done(t('verified_done'));
    }
  });
  return html`<form class="card narrow" onSubmit=${(e) => { e.preventDefault(); run(); }}>
    <h2>${t('create_account')}</h2>
    <${ErrorBanner} error=${error} />
    <${Field} label=${t('email')} type="email" autocomplete="username" value=${email} onInput=${setEmail} required readonly=${sent} />
    <${Field} label=${t('password')} type="password" autocomplete="new-password" minlength="8" value=${password} onInput=${setPassword} required readonly=${sent} />
    ${sent ? html`<${Notice}>${t('verify_sent', { email })}</${Notice}>
      <${Field} label=${t('verify_code')} inputmode="numeric" autocomplete="one-time-code" value=${code} onInput=${setCode} required />` : null}
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>${sent ? t('verify') : t('register')}</button>
      <button type="button" onClick=${() => setMode('sign-in')}>${t('back_to_sign_in')}</button>
    </div>
  </form>`;
}

/** The signed-out page: one h1 ("Sign in"), the form, and the invitation / new-account forms. */
export function SignIn({ api, t, onSignedIn }) {
  const [mode, setMode] = useState('sign-in');
  const [notice, setNotice] = useState(null);
  const done = (text) => { setNotice(text); setMode('sign-in'); };
  return html`<main id="content" class="sign-in">
    <h1 tabindex="-1">${t('sign_in')}</h1>
    ${mode === 'invitation' ? html`<${InvitationForm} api=${api} t=${t} done=${done} setMode=${setMode} />`
      : mode === 'register' ? html`<${RegisterForm} api=${api} t=${t} done=${done} setMode=${setMode} />`
        : html`<${SignInForm} api=${api} t=${t} onSignedIn=${onSignedIn} notice=${notice} setMode=${setMode} />`}
  </main>`;
}
