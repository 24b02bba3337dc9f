// Shared pieces of every screen. Each takes `t` (the screen's translate function) where it shows text of its own.
import { html, useEffect, useRef, useState } from './html.js';
import { formatAmount, formatTime } from './format.js';

let nextId = 0;
/** A stable unique id for label/field pairs. */
export function useId(prefix = 'f') {
  const ref = useRef(null);
  if (ref.current === null) ref.current = `${prefix}-${++nextId}`;
  return ref.current;
}

/** The API's message of a failure (ApiError.message is the envelope's `message`), in an alert. Nothing when no error. */
export function ErrorBanner({ error, t, onRetry }) {
  if (error === null || error === undefined) return null;
  const message = typeof error === 'string' ? error : error.message;
  return html`<div class="banner error" role="alert">
    <p>${message}${error.code ? html` <code class="muted">${error.code}</code>` : null}</p>
    ${onRetry ? html`<button type="button" onClick=${onRetry}>${t ? t('retry') : 'Try again'}</button>` : null}
  </div>`;
}

/** A notice (success, info) announced politely. */
export function Notice({ children, kind = 'info' }) {
  return html`<div class=${`banner ${kind}`} role="status">${children}</div>`;
}

/** Loading text, or a progress bar when `value`/`max` are given (long work shows its progress). */
export function Loading({ t, label, value, max }) {
  const text = label ?? (t ? t('loading') : 'Loading…');
  if (value !== undefined && max !== undefined) {
    return html`<div class="loading"><label>${text} <progress value=${value} max=${max}>${value}/${max}</progress></label></div>`;
  }
  return html`<p class="loading muted" role="status" aria-live="polite">${text}</p>`;
}

/** An empty list's text. */
export function EmptyState({ t, children }) {
  return html`<p class="empty muted">${children ?? (t ? t('empty') : 'Nothing here yet.')}</p>`;
}

/**
 * A data table. columns: [{ key, label, render?(row), numeric? }]; rows: objects; caption: the table's name (shown, or
 * visually hidden with `captionHidden`). Scrolls sideways on a narrow screen instead of overflowing the page.
 */
export function Table({ columns, rows, caption, captionHidden = false, rowKey = (row, i) => i, t }) {
  if (!rows || rows.length === 0) return html`<${EmptyState} t=${t} />`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${caption}>
    <table>
      <caption class=${captionHidden ? 'visually-hidden' : ''}>${caption}</caption>
      <thead><tr>${columns.map((c) => html`<th scope="col" class=${c.numeric ? 'num' : ''}>${c.label}</th>`)}</tr></thead>
      <tbody>${rows.map((row, i) => html`<tr key=${rowKey(row, i)}>${columns.map((c) => html`<td class=${c.numeric ? 'num' : ''}>${c.render ? c.render(row) : row[c.key]}</td>`)}</tr>`)}</tbody>
    </table>
  </div>`;
}

/** Previous/next paging. page is 1-based; pages the count (from the API's pagination or meta). */
export function Pager({ page, pages, onPage, t }) {
  if (!pages || pages <= 1) return null;
  return html`<nav class="pager" aria-label=${t('page_of', { page, pages })}>
    <button type="button" disabled=${page <= 1} onClick=${() => onPage(page - 1)}>${t('previous')}</button>
    <span>${t('page_of', { page, pages })}</span>
    <button type="button" disabled=${page >= pages} onClick=${() => onPage(page + 1)}>${t('next')}</button>
  </nav>`;
}

/**
 * A labelled form field. `label` is the accessible name (tests find fields by it); `hint` is described-by; `as` =
 * 'select' with `options` [{value,label}], or 'textarea'; other props go to the input.
 */
export function Field({ label, hint, as = 'input', options = [], value, onInput, error, ...rest }) {
  const id = useId('field');
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const described = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  const handler = (event) => onInput?.(event.currentTarget.value, event);
  const common = { id, value, 'aria-describedby': described, 'aria-invalid': error ? 'true' : undefined, ...rest };
  let control;
  if (as === 'select') control = html`<select ...${common} onChange=${handler}>${options.map((o) => html`<option value=${o.value}>${o.label}</option>`)}</select>`;
  else if (as === 'textarea') control = html`<textarea ...${common} onInput=${handler}></textarea>`;
  else control = html`<input ...${common} onInput=${handler} />`;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${control}
    ${hint ? html`<small id=${hintId} class="muted">${hint}</small>` : null}
    ${error ? html`<small id=${errorId} class="field-error">${error}</small>` : null}
  </div>`;
}

/** An amount (integer string in smallest units) in units with its asset. */
export function Amount({ value, asset, lang }) {
  return html`<span class="amount">${formatAmount(value, asset, { lang })}</span>`;
}

/** A time in the browser's zone, with UTC in the title (on hover) and the machine-readable instant. */
export function Time({ iso, lang }) {
  const { local, utc } = formatTime(iso, lang);
  return html`<time datetime=${iso ?? ''} title=${utc}>${local}</time>`;
}

/**
 * The step-up dialog: asks for a current code (a modal <dialog>, focus inside, Escape cancels). `onDone(code|null)`.
 * The shell shows it when api.askStepUp is called; screens only pass `{ stepUp: true }` to the api call.
 */
export function StepUpDialog({ t, message, onDone }) {
  const ref = useRef(null);
  const [code, setCode] = useState('');
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.open && dialog.close();
  }, []);
  const submit = (event) => {
    event.preventDefault();
    onDone(code.trim());
  };
  return html`<dialog ref=${ref} class="dialog" aria-labelledby="step-up-title" onCancel=${(e) => { e.preventDefault(); onDone(null); }}>
    <form onSubmit=${submit}>
      <h2 id="step-up-title">${t('step_up_title')}</h2>
      <p>${t('step_up_text')}</p>
      ${message ? html`<p class="field-error" role="alert">${message}</p>` : null}
      <${Field} label=${t('step_up_label')} value=${code} onInput=${setCode} inputmode="numeric" autocomplete="one-time-code" required autofocus />
      <div class="actions">
        <button type="submit" class="primary">${t('step_up_submit')}</button>
        <button type="button" onClick=${() => onDone(null)}>${t('cancel')}</button>
      </div>
    </form>
  </dialog>`;
}

/** Runs an async action from a button: busy while running, the API's message on failure. -> [run, busy, error, setError] */
export function useAction(action) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const run = async (...args) => {
    setBusy(true);
    setError(null);
    try {
      return await action(...args);
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return [run, busy, error, setError];
}
