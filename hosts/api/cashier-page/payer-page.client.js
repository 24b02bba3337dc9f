'use strict';
// The payer page's script, served as a file (GET /cashier/payer-page.js: the page's CSP runs no inline code). It reads
// the `ct_` token from the URL once, keeps it in sessionStorage and drops it from the address bar; every call sends it
// as a bearer header. Its settings and messages come from the page's JSON block (#page-config), data and not code.
(() => {
  const cfg = JSON.parse(document.getElementById('page-config').textContent);
  const $ = (id) => document.getElementById(id);
  const TERMINAL = [11, 12];
  const FAILED = 12;
  const DONE = 11;

  const query = new URLSearchParams(location.search);
  const ct = query.get('ct') || sessionStorage.getItem('ct') || '';
  if (query.has('ct')) {
    sessionStorage.setItem('ct', ct);
    history.replaceState(null, '', location.pathname);
  }

  const state = {
    lang: cfg.messages[sessionStorage.getItem('lang')] ? sessionStorage.getItem('lang') : cfg.lang,
    session: null,
    balance: null,
    chosen: null,
    chosenByPayer: false,
    chosenHeld: false,
    busy: false,
    ended: null,
    paused: false,
    notice: null,
    lastActivity: Date.now(),
    pendingKey: null,
    qr: 'none',
  };

  const t = (key, params) => String(cfg.messages[state.lang][key] ?? key)
    .replace(/\{(\w+)\}/g, (m, name) => (params && params[name] !== undefined ? String(params[name]) : m));

  /** Smallest units (an integer string) as `10.5 USDT`: exact, never a float. */
  function units(raw, symbol) {
    const decimals = BigInt(cfg.decimals[symbol] === undefined ? 6 : cfg.decimals[symbol]);
    const value = BigInt(raw);
    const base = 10n ** decimals;
    const whole = (value / base).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    const fraction = (value % base).toString().padStart(Number(decimals), '0').replace(/0+$/, '');
    return whole + (fraction === '' ? '' : '.' + fraction) + ' ' + symbol;
  }

  /** Smallest units as a wallet's amount field takes them: `10.5`, no grouping, no symbol. */
  const plain = (raw, symbol) => units(raw, symbol).split(' ')[0].replace(/,/g, '');

  function duration(ms) {
    const total = Math.max(0, Math.ceil(ms / 1000));
    const h = Math.floor(total / 3600);
    const m = Math.floor((total % 3600) / 60);
    const s = total % 60;
    const two = (n) => String(n).padStart(2, '0');
    return h > 0 ? h + ':' + two(m) + ':' + two(s) : m + ':' + two(s);
  }

  /** An Idempotency-Key from getRandomValues, which (unlike crypto.randomUUID) plain-HTTP origins have too. */
  function newKey() {
    return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  async function api(path, init) {
    const options = init || {};
    const response = await fetch('/api/cashier/' + path, {
      method: options.method || 'GET',
      body: options.body,
      cache: 'no-store',
      headers: Object.assign({ authorization: 'Bearer ' + ct }, options.headers || {}),
    });
    let body = null;
    try { body = await response.json(); } catch (e) { body = null; }
    return { status: response.status, code: body && body.code, data: body && body.data };
  }

  // ---- derived state -------------------------------------------------------------------------------------------

  const items = () => (state.balance ? state.balance.items : []);
  const itemOf = (symbol) => items().find((i) => i.symbol === symbol);
  // What a collection would move (GET /cashier/collectable): dust, which a sweep cannot move, is 0 and never offered.
  const available = (symbol) => BigInt((itemOf(symbol) || { balance_collectable: '0' }).balance_collectable);
  const held = (symbol) => {
    const item = itemOf(symbol);
    return item ? BigInt(item.balance_collectable) + BigInt(item.balance_locked) : 0n;
  };
  const minimumOf = (symbol) => BigInt((state.session && state.session.min_collect_amounts[symbol]) || '0');
  const task = () => (state.session ? state.session.active_task : null);
  const running = () => task() !== null && !TERMINAL.includes(task().status);
  // A payment request (issue #25): an amount, a fixed deadline, a status judged by the server; forwarded by itself.
  const request = () => (state.session && state.session.payment) || null;
  // config.auto_collect (issue #24): the worker forwards this asset by itself from this sweepable amount.
  const autoMinimumOf = (symbol) => {
    const rule = state.session && state.session.auto_collect && state.session.auto_collect[symbol];
    return rule ? BigInt(rule.min_amount) : null;
  };
  const forwardsByItself = (symbol) => {
    const minimum = autoMinimumOf(symbol);
    return minimum !== null && available(symbol) > 0n && available(symbol) >= minimum;
  };

  /** The asset that holds a balance (at or above its minimum first; a token before TRX, which may be gas left over). */
  function autoChoice() {
    const withBalance = items().filter((i) => held(i.symbol) > 0n);
    const enough = withBalance.filter((i) => available(i.symbol) >= minimumOf(i.symbol));
    const prefer = (list) => list.find((i) => i.symbol !== 'TRX') || list[0];
    const pick = prefer(enough) || prefer(withBalance) || prefer(items());
    return pick ? pick.symbol : null;
  }

  // The payment request's view (payment-request-view.js, joined ahead of this script): what to ask, what to say.
  const requestView = () => paymentRequestView(request(), task() === null ? null : task().status, Date.now());

  function phase() {
    if (request() !== null) return requestView().phase;
    if (running()) return 'sweeping';
    const amount = available(state.chosen);
    const latest = task();
    if (latest !== null && latest.status === FAILED) return 'failed';
    if (latest !== null && latest.status === DONE && amount === 0n) return 'done';
    if (amount > 0n && forwardsByItself(state.chosen)) return 'auto';
    if (amount > 0n) return amount >= minimumOf(state.chosen) ? 'received' : 'below';
    return 'waiting';
  }

  const canCollect = () => {
    const amount = available(state.chosen);
    return !state.busy && !state.ended && !running() && request() === null && state.chosen !== null && amount > 0n
      && amount >= minimumOf(state.chosen) && !forwardsByItself(state.chosen);
  };

  // ---- rendering -----------------------------------------------------------------------------------------------

  function setText(el, value) {
    if (el.textContent !== value) el.textContent = value;
  }

  function applyLanguage() {
    document.documentElement.lang = state.lang;
    for (const el of document.querySelectorAll('[data-i18n]')) setText(el, t(el.dataset.i18n));
    for (const el of document.querySelectorAll('[data-i18n-label]')) el.setAttribute('aria-label', t(el.dataset.i18nLabel));
    for (const button of document.querySelectorAll('[data-lang]')) button.setAttribute('aria-pressed', String(button.dataset.lang === state.lang));
  }

  function renderAssets() {
    const list = $('asset-list');
    for (const item of items()) {
      let row = list.querySelector('[data-symbol="' + item.symbol + '"]');
      if (row === null) {
        row = document.createElement('label');
        row.className = 'asset';
        row.dataset.symbol = item.symbol;
        const input = document.createElement('input');
        input.type = 'radio';
        input.name = 'asset';
        input.value = item.symbol;
        input.addEventListener('change', () => {
          state.chosen = item.symbol;
          state.chosenByPayer = true;
          state.pendingKey = null;
          render();
        });
        const name = document.createElement('span');
        name.className = 'symbol';
        name.textContent = item.symbol === 'USDT' ? 'USDT (TRC20)' : item.symbol;
        const amount = document.createElement('span');
        amount.className = 'amount';
        row.append(input, name, amount);
        list.append(row);
      }
      row.querySelector('input').checked = item.symbol === state.chosen;
      setText(row.querySelector('.amount'), units(held(item.symbol).toString(), item.symbol));
    }
  }

  const STEPS = ['waiting', 'received', 'sweeping', 'done'];
  const REACHED = { waiting: 0, received: 1, below: 1, confirming: 1, auto: 1, sweeping: 2, failed: 2, forward_failed: 2, done: 3, expired: 0, late: 1 };
  const STOPPED = ['failed', 'forward_failed', 'expired', 'late'];

  function renderProgress(current) {
    const at = REACHED[current];
    for (const li of $('progress').children) {
      const index = STEPS.indexOf(li.dataset.step);
      const failedHere = STOPPED.includes(current) && index === at;
      li.className = failedHere ? 'failed' : index < at || (current === 'done' && index === at) ? 'done' : index === at ? 'current' : '';
      if (index === at) li.setAttribute('aria-current', 'step');
      else li.removeAttribute('aria-current');
      setText(li.firstElementChild, t(failedHere ? 'step_failed' : 'step_' + li.dataset.step));
    }
  }

  function statusText(current) {
    const amount = units(available(state.chosen).toString(), state.chosen || 'USDT');
    switch (current) {
      case 'received': return t('status_received', { amount });
      case 'below': {
        const minimum = minimumOf(state.chosen);
        const missing = (minimum - available(state.chosen)).toString();
        return t('status_below', { amount, minimum: units(minimum.toString(), state.chosen), missing: units(missing, state.chosen) });
      }
      case 'auto': return t('status_auto', { amount });
      default: return t('status_' + current);
    }
  }

  /** The payer page of a payment request: the amount, the merchant, the fixed deadline, only the requested asset. */
  function renderRequest(r) {
    const heading = $('heading');
    const network = $('network');
    delete heading.dataset.i18n;
    delete network.dataset.i18n;
    const asset = r.asset_symbol === 'USDT' ? 'USDT (TRC20)' : r.asset_symbol;
    heading.classList.add('request');
    setText(heading, t('pay_heading', { amount: units(r.amount, r.asset_symbol) }));
    setText(network, t('network_one', { asset }));
    const name = state.session.payment.merchant_name;
    $('merchant').hidden = !name;
    setText($('merchant'), name ? t('merchant', { name }) : '');
    $('reference').hidden = !r.reference;
    setText($('reference'), r.reference ? t('reference', { label: r.reference }) : '');
    $('description').hidden = !r.description;
    setText($('description'), r.description || '');
    const view = requestView();
    // Nothing to pay (confirming covers the rest, or the request is over): no address, QR code or copy button offered.
    $('pay-card').hidden = view.pay === null;
    $('checkout').classList.toggle('single', view.pay === null);
    $('amount-box').hidden = view.pay === null;
    $('copy-amount').hidden = view.pay === null;
    $('copy-amount').dataset.amount = view.pay === null ? '' : plain(view.pay, r.asset_symbol);
    if (view.pay !== null) {
      const [number, symbol] = units(view.pay, r.asset_symbol).split(' ');
      setText($('amount-number'), number);
      setText($('amount-symbol'), symbol);
      $('amount-label').dataset.i18n = view.amountLabel;
      setText($('amount-label'), t(view.amountLabel));
    }
    renderTransfers(r);
    $('assets').hidden = true;
    $('collect').hidden = true;
    $('collect-hint').hidden = true;
    $('minimums').hidden = true;
    $('countdown').hidden = true;
    $('status').hidden = true;
    renderProgress(view.phase);
    const summary = $('summary');
    summary.hidden = false;
    const of = (raw) => units(raw, r.asset_symbol);
    setText(summary, view.lines.map((line) => t(line.key, Object.fromEntries(Object.entries(line.params).map(([k, v]) => [k, of(v)])))).join(t('sentence_gap')));
    summary.className = 'summary ' + view.phase;
    renderDeadline();
  }

  /** The transfers seen for the request, oldest first: amount, status and txid (the session's payment.transfers). */
  function renderTransfers(r) {
    const transfers = r.transfers || [];
    const list = $('transfer-list');
    $('transfers').hidden = transfers.length === 0;
    for (const [index, transfer] of transfers.entries()) {
      let item = list.children[index];
      if (item === undefined) {
        item = document.createElement('li');
        const head = document.createElement('span');
        head.className = 'transfer-head';
        const amount = document.createElement('span');
        amount.className = 'transfer-amount';
        const status = document.createElement('span');
        status.className = 'transfer-status';
        head.append(amount, ' ', status);
        const label = document.createElement('span');
        label.className = 'transfer-label';
        const txid = document.createElement('code');
        txid.className = 'txid';
        item.append(head, label, txid);
        list.append(item);
      }
      item.dataset.status = transfer.status;
      setText(item.querySelector('.transfer-amount'), units(transfer.amount, r.asset_symbol));
      setText(item.querySelector('.transfer-status'), t('transfer_' + transfer.status));
      setText(item.querySelector('.transfer-label'), t('transfer_txid'));
      setText(item.querySelector('.txid'), transfer.txid);
    }
    while (list.children.length > transfers.length) list.lastElementChild.remove();
  }

  /** The fixed deadline's countdown (never the token's sliding expiry), shown while the request waits for payment. */
  function renderDeadline() {
    const r = request();
    if (r === null || state.ended) return;
    // Only while something is asked: a payment being confirmed counts if it was seen in time.
    const open = requestView().pay !== null;
    const left = Date.parse(r.deadline) - Date.now();
    $('deadline').hidden = !open;
    if (open) setText($('deadline'), left > 0 ? t('pay_within', { time: duration(left) }) : t('deadline_passed'));
  }

  function renderCountdown() {
    if (state.session === null || state.ended) return;
    renderDeadline();
    const left = Date.parse(state.session.expires_at) - Date.now();
    setText($('countdown'), t('expires_in', { time: duration(left) }));
    // A paused page must not ask: a request would slide the expiry the pause lets run out.
    if (left <= 0) {
      if (state.paused) end('expired');
      else checkExpiry();
    }
  }

  function render() {
    applyLanguage();
    if (state.ended) return;
    const session = state.session;
    if (session === null || state.balance === null) return;
    $('loading').hidden = true;
    $('checkout').hidden = false;
    setText($('address'), session.address.address);
    if (state.qr === 'shown') $('qr').alt = t('qr_alt', { address: session.address.address });
    if (request() !== null) {
      renderRequest(request());
      setText($('notice'), state.notice === null ? '' : t(state.notice));
      $('paused').hidden = !state.paused;
      renderCountdown();
      return;
    }
    const label = session.address.address_label;
    $('reference').hidden = !label;
    setText($('reference'), label ? t('reference', { label }) : '');
    if (state.qr === 'shown') $('qr').alt = t('qr_alt', { address: session.address.address });
    const minimums = Object.entries(session.min_collect_amounts).filter(([, min]) => BigInt(min) > 0n).sort(([a], [b]) => (a < b ? -1 : 1));
    setText($('minimums'), minimums.length === 0
      ? t('no_minimum')
      : t('minimum', { amounts: minimums.map(([symbol, min]) => units(min, symbol)).join(' · ') }));
    // The default follows the first asset to hold a balance, then stays: after a sweep the chosen asset is empty while
    // the gas float (TRX) may linger, and the page must not jump to it.
    if (!state.chosenByPayer && !state.chosenHeld) {
      state.chosen = autoChoice();
      state.chosenHeld = state.chosen !== null && held(state.chosen) > 0n;
    }
    renderAssets();
    const current = phase();
    renderProgress(current);
    setText($('status'), statusText(current));
    $('status').className = 'status ' + current;
    const amount = available(state.chosen);
    setText($('collect'), amount > 0n && !running() ? t('collect_amount', { amount: units(amount.toString(), state.chosen) }) : t('collect'));
    $('collect').disabled = !canCollect();
    // An asset the merchant's auto_collect covers is forwarded by the worker: no button to press (issue #24).
    $('collect').hidden = current === 'auto';
    $('collect-hint').hidden = current === 'auto';
    setText($('notice'), state.notice === null ? '' : t(state.notice));
    $('paused').hidden = !state.paused;
    renderCountdown();
  }

  /** Ends the page: the payment part is hidden and a plain message says why and what to do. */
  function end(reason) {
    if (state.ended) return;
    state.ended = reason;
    clearInterval(pollTimer);
    $('loading').hidden = true;
    $('checkout').hidden = true;
    $('reference').hidden = true;
    const problem = $('problem');
    problem.dataset.reason = reason;
    problem.hidden = false;
    setText(problem, t('err_' + reason));
  }

  // ---- refreshing ----------------------------------------------------------------------------------------------

  let refreshes = 0;
  let backoffUntil = 0;

  async function refresh() {
    // Only the latest refresh renders: an older answer arriving late must not overwrite a newer one.
    const seq = ++refreshes;
    try {
      const [session, balance] = await Promise.all([api('session'), api('collectable')]);
      if (seq !== refreshes || state.ended) return;
      if (session.status === 401 || balance.status === 401) return end(countdownOver() ? 'expired' : 'invalid');
      if (session.status === 429 || balance.status === 429) {
        backoffUntil = Date.now() + 60_000;
        return notice('err_busy');
      }
      if (session.code !== 'OK' || balance.code !== 'OK') return notice('err_generic');
      state.session = session.data;
      state.balance = balance.data;
      if (state.notice === 'err_busy' || state.notice === 'err_network' || state.notice === 'err_generic') state.notice = null;
      render();
      loadQr();
    } catch (e) {
      if (seq === refreshes) notice('err_network');
    }
  }

  const countdownOver = () => state.session !== null && Date.parse(state.session.expires_at) <= Date.now();

  function notice(key) {
    state.notice = key;
    render();
  }

  /** One beat of the refresh timer: a fixed period, whatever the network does, so the rate stays within spec §8. */
  function poll() {
    if (state.ended || state.paused || Date.now() < backoffUntil) return;
    if (Date.now() - state.lastActivity >= cfg.idleMs) {
      state.paused = true;
      render();
      return;
    }
    refresh();
  }

  let checking = false;
  /** At zero the countdown asks the server once: another tab may have kept the session alive. */
  async function checkExpiry() {
    if (checking || state.ended) return;
    checking = true;
    await refresh();
    checking = false;
    if (!state.ended && countdownOver()) end('expired');
  }

  function activity() {
    state.lastActivity = Date.now();
    if (state.paused && !state.ended) {
      state.paused = false;
      render();
      refresh();
    }
  }

  async function loadQr() {
    if (state.qr !== 'none' || state.session === null) return;
    if (request() !== null && requestView().pay === null) return;
    state.qr = 'loading';
    try {
      const response = await fetch('/api/cashier/qr', { cache: 'no-store', headers: { authorization: 'Bearer ' + ct } });
      if (!response.ok) throw new Error('qr ' + response.status);
      const img = $('qr');
      img.src = URL.createObjectURL(await response.blob());
      img.alt = t('qr_alt', { address: state.session.address.address });
      img.hidden = false;
      state.qr = 'shown';
    } catch (e) {
      state.qr = 'none';
    }
  }

  // ---- actions -------------------------------------------------------------------------------------------------

  const COLLECT_ERRORS = {
    'BIZ-COMMAND-LOCKED': 'err_locked', 'BIZ-AMOUNT-BELOW-MINIMUM': 'err_below', 'RISK-REVIEW-BLOCKED': 'err_risk', 'RATE-LIMITED': 'err_busy',
  };

  async function collect() {
    if (!canCollect()) return;
    state.busy = true;
    state.notice = null;
    render();
    // The same key until an answer arrives: a retry after a lost reply replays instead of starting a second task.
    state.pendingKey = state.pendingKey || newKey();
    try {
      const result = await api('collect', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': state.pendingKey },
        body: JSON.stringify({ asset_symbol: state.chosen }),
      });
      state.pendingKey = null;
      if (result.status === 401) {
        state.busy = false;
        return end(countdownOver() ? 'expired' : 'invalid');
      }
      if (result.status !== 201) state.notice = COLLECT_ERRORS[result.code] || 'err_generic';
      else if (state.session !== null) state.session.active_task = result.data;
    } catch (e) {
      state.notice = 'err_network';
    }
    state.busy = false;
    render();
    await refresh();
  }

  /** Copies `text`; outside a secure context, selects `element` (which shows it) and copies the selection. */
  async function copyText(text, element, done) {
    let copied = false;
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(text);
        copied = true;
      }
    } catch (e) {
      copied = false;
    }
    if (!copied) {
      const range = document.createRange();
      range.selectNodeContents(element);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      try { copied = document.execCommand('copy'); } catch (e) { copied = false; }
    }
    setText($('copy-status'), t(copied ? done : 'copy_failed'));
  }

  const copyAddress = () => copyText($('address').textContent, $('address'), 'copied');
  // The amount left to pay as a wallet takes it (the button's data-amount): the number alone, in units, no symbol.
  const copyAmount = () => {
    const amount = $('copy-amount').dataset.amount;
    if (request() !== null && amount) copyText(amount, $('amount-number'), 'amount_copied');
  };

  for (const button of document.querySelectorAll('[data-lang]')) {
    button.addEventListener('click', () => {
      state.lang = button.dataset.lang;
      sessionStorage.setItem('lang', state.lang);
      render();
      if (state.ended) setText($('problem'), t('err_' + state.ended));
      if ($('copy-status').textContent !== '') setText($('copy-status'), '');
    });
  }
  $('collect').addEventListener('click', collect);
  $('copy').addEventListener('click', copyAddress);
  $('copy-amount').addEventListener('click', copyAmount);
  $('resume').addEventListener('click', activity);
  for (const type of ['pointerdown', 'keydown', 'touchstart', 'wheel']) addEventListener(type, activity, { passive: true, capture: true });
  // Each second: the countdowns, and a request's page at its deadline (it stops asking before the server says expired).
  setInterval(() => {
    if (request() !== null && !state.ended) renderRequest(request());
    renderCountdown();
  }, 1000);
  const pollTimer = setInterval(poll, cfg.pollMs);

  applyLanguage();
  if (ct === '') end('missing');
  else refresh();
})();
