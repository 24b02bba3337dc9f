// The console's screens, in navigation order. ONE LINE PER SCREEN, so that people adding screens in parallel do not
// collide.
//
// THE SCREEN CONTRACT (issue #38). A screen is one module hosts/api/console/app/screens/<id>.js whose default export is
//   {
//     id:       'payments',                       // unique, lower-case; also the screenshot's name in the browser tests
//     path:     '/payments',                      // its address: /console#/payments (and /console#/payments/<more>)
//     roles:    ['owner','admin','approver','operator','viewer'],  // who sees it in the navigation and may open it
//     title:    { en: 'Payments', zh: '收款' },   // the nav link's name and the screen's single h1
//     messages: { en: { ... }, zh: { ... } },     // the screen's own texts, read with t(key, vars)
//     Screen,                                     // a Preact component (write it with `html` from ../lib/html.js)
//   }
// Screen receives { api, session, t, route, lang }:
//   api     - lib/api.js client: api.get('/ledger/balances'), api.post(path, body, { stepUp: true, idempotencyKey }),
//             api.download(path, query, filename); failures throw ApiError with the API's message (show it with
//             <ErrorBanner>); a 401 returns the console to the sign-in by itself.
//   session - GET /api/auth/console/session: { user_id, email, role, two_factor_enabled, api_access, expires_at, idle_timeout_s }
//   t       - t(key, vars): the screen's messages, then the shell's (lib/messages.js), in the chosen language
//   route   - { path, rest, query, go }: rest = the address's segments after the screen's path (a detail's id),
//             query = URLSearchParams of the address, go('/payments/123') navigates
//   lang    - 'en' | 'zh' (for lib/format.js and <Amount>/<Time>)
// The shell draws the h1 from `title`, focuses it on navigation, and keeps the screen out of reach of roles not listed.
// Live data: usePoll from lib/poll.js (background calls; the API's 60 GETs a minute are per ACCOUNT, shared by every
// member and tab: poll few routes, every 10 s or slower). Shared pieces: lib/components.js. Money: lib/format.js
// (never a float). Charts: lib/chart.js (uPlot, loaded on first use). Step-up: api.post(path, body, { stepUp: true }).
// The routes a screen calls decide what it can do: a screen is possible only where its route exists.
import dashboard from './dashboard.js';
import payments from './payments.js';
import deposits from './deposits.js';
import addresses from './addresses.js';
import collections from './collections.js';
import withdrawals from './withdrawals.js';
import books from './books.js';
import developers from './developers.js';
import security from './security.js';

export const SCREENS = [
  dashboard,
  payments,
  deposits,
  addresses,
  collections,
  withdrawals,
  books,
  developers,
  security,
];
