// The operator console (issue #38 item 2) at /console/admin: the admin token typed once into the sign-in form and
// exchanged for the server's HttpOnly cookie session (POST /api/admin/console/session), then the screens of
// screens/index.js (the merchant console's screen contract, with `session` the admin session). Everything goes through
// the merchant console's lib/api.js to the public admin API; the shared pieces are the merchant console's lib/*.
import { html, render, useEffect, useMemo, useRef, useState } from '../app/lib/html.js';
import { createApi } from '../app/lib/api.js';
import { ErrorBanner, Field, Loading, useAction } from '../app/lib/components.js';
import { initialLanguage, LANGUAGES, rememberLanguage, translator } from '../app/lib/i18n.js';
import { ADMIN_SCREENS } from './screens/index.js';
import { go, parseHash, screenAt, useHashRoute } from '../app/lib/router.js';

const MESSAGES = {
  en: {
    app_name: 'Custody Hub operator console', operator_nav: 'Operator', admin_token: 'Admin token',
    admin_token_hint: 'The API\'s ADMIN_TOKEN. It is sent once and exchanged for a session cookie; it is not kept in the browser.',
    signed_in_admin: 'Signed in as the operator', sign_in: 'Sign in', sign_in_title: 'Operator sign-in',
  },
  zh: {
    app_name: 'Custody Hub 运营控制台', operator_nav: '运营', admin_token: '管理员令牌',
    admin_token_hint: 'API 的 ADMIN_TOKEN。仅发送一次，换取会话 Cookie；浏览器中不会保存令牌。',
    signed_in_admin: '已以运营者身份登录', sign_in: '登录', sign_in_title: '运营者登录',
  },
};

const adminScreenAt = (path) => screenAt(path, ADMIN_SCREENS);

function SignIn({ api, t, onSignedIn }) {
  const [token, setToken] = useState('');
  const [run, busy, error] = useAction(async () => {
    const session = await api.post('/admin/console/session', { token: token.trim() });
    setToken('');
    onSignedIn(session);
  });
  return html`<main id="content" class="sign-in">
    <h1 tabindex="-1">${t('sign_in_title')}</h1>
    <form class="card narrow" onSubmit=${(e) => { e.preventDefault(); run(); }}>
      <${ErrorBanner} error=${error} />
      <${Field} label=${t('admin_token')} hint=${t('admin_token_hint')} type="password" autocomplete="off" value=${token} onInput=${setToken} required />
      <div class="actions"><button type="submit" class="primary" disabled=${busy}>${t('sign_in')}</button></div>
    </form>
  </main>`;
}

function ScreenView({ screen, api, session, lang, hash }) {
  const t = useMemo(() => translator(lang, screen.messages), [screen, lang]);
  const heading = useRef(null);
  useEffect(() => { heading.current?.focus(); }, [screen]);
  const rest = hash.path.slice(screen.path.length).split('/').filter(Boolean).map(decodeURIComponent);
  const Screen = screen.Screen;
  return html`<main id="content" class="screen" aria-labelledby=${`h1-${screen.id}`}>
    <h1 id=${`h1-${screen.id}`} tabindex="-1" ref=${heading}>${screen.title[lang] ?? screen.title.en}</h1>
    <${Screen} api=${api} session=${session} t=${t} route=${{ path: hash.path, rest, query: hash.query, go }} lang=${lang} />
  </main>`;
}

function App() {
  const [lang, setLangState] = useState(initialLanguage);
  const [session, setSession] = useState(undefined);
  const [error, setError] = useState(null);
  const hash = useHashRoute();
  const api = useMemo(() => createApi({ onUnauthenticated: () => setSession(null) }), []);
  const t = useMemo(() => translator(lang, MESSAGES), [lang]);
  const setLang = (next) => { rememberLanguage(next); setLangState(next); };
  useEffect(() => { rememberLanguage(lang); }, []);
  useEffect(() => {
    api.get('/admin/console/session').then(setSession, (e) => { if (e.status !== 401) setError(e); setSession(null); });
  }, []);
  const current = adminScreenAt(hash.path);
  useEffect(() => { document.title = `${session ? (current?.title[lang] ?? '') : t('sign_in')} · ${t('app_name')}`; });
  const signOut = async () => {
    try { await api.del('/admin/console/session'); } catch { /* the session already ended */ }
    setSession(null);
  };
  const header = html`<header class="top">
    <a class="skip" href="#content" onClick=${(e) => { e.preventDefault(); document.querySelector('#content h1')?.focus(); }}>${t('skip')}</a>
    <span class="brand">${t('app_name')}</span>
    <div class="languages" role="group" aria-label=${t('language')}>
      ${LANGUAGES.map((l) => html`<button type="button" lang=${l.tag === 'zh' ? 'zh-CN' : 'en'} aria-pressed=${String(l.tag === lang)} onClick=${() => setLang(l.tag)}>${l.name}</button>`)}
    </div>
    ${session ? html`<span class="who">${t('signed_in_admin')}</span><button type="button" onClick=${signOut}>${t('sign_out')}</button>` : null}
  </header>`;
  if (session === undefined) return html`${header}<main id="content"><h1>${t('app_name')}</h1><${Loading} t=${t} /></main>`;
  if (session === null) {
    return html`${header}<${ErrorBanner} error=${error} />
      <${SignIn} api=${api} t=${t} onSignedIn=${(s) => { setError(null); setSession(s); if (!adminScreenAt(parseHash().path)) go(ADMIN_SCREENS[0].path); }} />`;
  }
  if (current === null && hash.path === '/') { go(ADMIN_SCREENS[0].path); return null; }
  const body = current === null
    ? html`<main id="content"><h1 tabindex="-1">${t('not_found')}</h1></main>`
    : html`<${ScreenView} key=${current.id} screen=${current} api=${api} session=${session} lang=${lang} hash=${hash} />`;
  return html`${header}
    <div class="layout">
      <nav class="main-nav" aria-label=${t('operator_nav')}>
        <ul>${ADMIN_SCREENS.map((s) => html`<li><a href=${`#${s.path}`} aria-current=${s === current ? 'page' : undefined}>${s.title[lang] ?? s.title.en}</a></li>`)}</ul>
      </nav>
      <div class="content">${body}</div>
    </div>`;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
