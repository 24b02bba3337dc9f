// The console shell (issue #38): session, language, hash router, navigation, the step-up dialog, and the screens of
// screens/index.js (read the contract there). Everything the console does goes through lib/api.js to the public API.
import { html, render, useEffect, useMemo, useRef, useState } from './lib/html.js';
import { createApi } from './lib/api.js';
import { ErrorBanner, Loading, StepUpDialog } from './lib/components.js';
import { initialLanguage, LANGUAGES, rememberLanguage, translator } from './lib/i18n.js';
import { SignIn } from './sign-in.js';
import { TwoFactorEnrol } from './two-factor.js';
import { SCREENS } from './screens/index.js';
import { go, parseHash, screenAt, useHashRoute } from './lib/router.js';

const ROLES_NEEDING_2FA = new Set(['owner', 'admin', 'approver']);

function LanguageSwitch({ lang, setLang, t }) {
  return html`<div class="languages" role="group" aria-label=${t('language')}>
    ${LANGUAGES.map((l) => html`<button type="button" lang=${l.tag === 'zh' ? 'zh-CN' : 'en'} aria-pressed=${String(l.tag === lang)} onClick=${() => setLang(l.tag)}>${l.name}</button>`)}
  </div>`;
}

function Nav({ screens, current, lang, t }) {
  return html`<nav class="main-nav" aria-label=${t('main_nav')}>
    <ul>${screens.map((s) => html`<li><a href=${`#${s.path}`} aria-current=${s === current ? 'page' : undefined}>${s.title[lang] ?? s.title.en}</a></li>`)}</ul>
  </nav>`;
}

function ScreenView({ screen, api, session, lang, hash }) {
  const t = useMemo(() => translator(lang, screen.messages), [screen, lang]);
  const heading = useRef(null);
  useEffect(() => { heading.current?.focus(); }, [screen]);
  const rest = hash.path.slice(screen.path.length).split('/').filter(Boolean).map(decodeURIComponent);
  const route = { path: hash.path, rest, query: hash.query, go };
  const Screen = screen.Screen;
  return html`<main id="content" class="screen" aria-labelledby=${`h1-${screen.id}`}>
    <h1 id=${`h1-${screen.id}`} tabindex="-1" ref=${heading}>${screen.title[lang] ?? screen.title.en}</h1>
    <${Screen} api=${api} session=${session} t=${t} route=${route} lang=${lang} />
  </main>`;
}

function App() {
  const [lang, setLangState] = useState(initialLanguage);
  const [session, setSession] = useState(undefined);
  const [stepUp, setStepUp] = useState(null);
  const [error, setError] = useState(null);
  const hash = useHashRoute();
  const api = useMemo(() => createApi({ onUnauthenticated: () => setSession(null) }), []);
  api.askStepUp = (failure) => new Promise((resolve) => setStepUp({ message: failure.code === 'AUTH-STEP-UP-INVALID' ? failure.message : null, resolve }));
  const t = useMemo(() => translator(lang), [lang]);
  const setLang = (next) => { rememberLanguage(next); setLangState(next); };
  useEffect(() => { rememberLanguage(lang); }, []);
  // Who is signed in: 401 shows the sign-in; another failure (429, the network) its message and a retry, not a sign-in.
  const loadSession = () => {
    setError(null);
    api.get('/auth/console/session').then(setSession, (e) => { if (e.status === 401) setSession(null); else setError(e); });
  };
  useEffect(loadSession, []);
  useEffect(() => { document.title = `${session ? (screenAt(hash.path, SCREENS)?.title[lang] ?? '') : t('sign_in')} · ${t('app_name')}`; });
  const signOut = async () => {
    try { await api.del('/auth/console/session'); } catch { /* the cookie is cleared or the session already ended */ }
    setSession(null);
    go('/dashboard');
  };
  const header = html`<header class="top">
    <a class="skip" href="#content" onClick=${(e) => { e.preventDefault(); document.querySelector('#content h1')?.focus(); }}>${t('skip')}</a>
    <span class="brand">${t('app_name')}</span>
    <${LanguageSwitch} lang=${lang} setLang=${setLang} t=${t} />
    ${session ? html`<span class="who">${t('signed_in_as', { email: session.email, role: t(`role_${session.role}`) })}</span>
      <button type="button" onClick=${signOut}>${t('sign_out')}</button>` : null}
  </header>`;
  if (session === undefined) {
    return html`${header}<main id="content"><h1>${t('app_name')}</h1>
      ${error ? html`<${ErrorBanner} error=${error} t=${t} onRetry=${loadSession} />` : html`<${Loading} t=${t} />`}</main>`;
  }
  if (session === null) {
    return html`${header}
      <${SignIn} api=${api} t=${t} onSignedIn=${(s) => { setError(null); setSession(s); if (!screenAt(parseHash().path, SCREENS)) go('/dashboard'); }} />`;
  }
  const allowed = SCREENS.filter((s) => s.roles.includes(session.role));
  const current = screenAt(hash.path, SCREENS);
  if (current === null && hash.path === '/') { go(allowed[0]?.path ?? '/dashboard'); return null; }
  const needs2fa = ROLES_NEEDING_2FA.has(session.role) && !session.two_factor_enabled && session.role !== 'owner';
  let body;
  if (current === null) body = html`<main id="content"><h1 tabindex="-1">${t('not_found')}</h1></main>`;
  else if (!allowed.includes(current)) body = html`<main id="content"><h1 tabindex="-1">${current.title[lang] ?? current.title.en}</h1><p role="alert">${t('forbidden_screen')}</p></main>`;
  else body = html`<${ScreenView} key=${current.id} screen=${current} api=${api} session=${session} lang=${lang} hash=${hash} />`;
  return html`${header}
    <div class="layout">
      <${Nav} screens=${allowed} current=${current} lang=${lang} t=${t} />
      <div class="content">
        ${needs2fa ? html`<div class="banner warn" role="status"><p>${t('two_factor_needed')}</p>
          <${TwoFactorEnrol} api=${api} t=${t} onEnabled=${() => api.get('/auth/console/session').then(setSession)} /></div>` : null}
        ${body}
      </div>
    </div>
    ${stepUp ? html`<${StepUpDialog} t=${t} message=${stepUp.message} onDone=${(code) => { const r = stepUp.resolve; setStepUp(null); r(code); }} />` : null}`;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
