// The consoles' hash router (issue #38): the merchant console and the operator console keep their screen's address
// after '#', so a reload or a shared link opens the same screen and nothing of it reaches the server.
import { useEffect, useState } from './html.js';

/** The address after '#': '/payments/T12?status=paid' -> { path: '/payments/T12', query }. */
export function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [pathPart, queryPart = ''] = raw.split('?');
  return { path: pathPart.startsWith('/') ? pathPart : `/${pathPart}`, query: new URLSearchParams(queryPart) };
}

/** The current address, following every hash change. */
export function useHashRoute() {
  const [hash, setHash] = useState(parseHash);
  useEffect(() => {
    const onChange = () => setHash(parseHash());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return hash;
}

export const go = (path) => { location.hash = `#${path}`; };

/** The screen whose path is the address or a prefix of it (by whole segments). */
export function screenAt(path, screens) {
  return screens.find((s) => path === s.path || path.startsWith(`${s.path}/`)) ?? null;
}
