// Live updates (issue #38: "new payments and status changes appear without a reload"): a screen's reads are repeated
// every few seconds through the public API while the tab is visible, and paused while it is hidden. Polls are sent as
// background calls (X-Console-Poll: 1), which do not keep an idle session alive.
import { useEffect, useRef, useState } from './html.js';

/**
 * How often a screen re-reads by default: 10 s. The API allows 60 GETs a minute per ACCOUNT (spec §8: every member and
 * every open tab of the account share it), so a screen should poll few routes: 2 reads every 10 s is 12 a minute.
 */
export const POLL_MS = 10_000;

/**
 * usePoll(load, { intervalMs, deps }) -> { data, error, loading, refresh }. `load({ background })` returns a promise of
 * the data (call the api with `{ background }`); the first load is a foreground call, the repeats background ones.
 */
export function usePoll(load, { intervalMs = POLL_MS, deps = [] } = {}) {
  const [state, setState] = useState({ data: undefined, error: null, loading: true });
  const loadRef = useRef(load);
  loadRef.current = load;
  const tick = useRef(() => Promise.resolve());
  useEffect(() => {
    let stopped = false;
    let timer = null;
    const run = async (background) => {
      clearTimeout(timer);
      try {
        const data = await loadRef.current({ background });
        if (!stopped) setState({ data, error: null, loading: false });
      } catch (error) {
        if (!stopped) setState((s) => ({ data: s.data, error, loading: false }));
      }
      if (!stopped && document.visibilityState === 'visible') timer = setTimeout(() => run(true), intervalMs);
    };
    tick.current = () => run(false);
    const onVisibility = () => {
      if (document.visibilityState === 'visible') run(true);
      else clearTimeout(timer);
    };
    document.addEventListener('visibilitychange', onVisibility);
    setState((s) => ({ ...s, loading: true }));
    run(false);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, deps);
  return { ...state, refresh: () => tick.current() };
}
