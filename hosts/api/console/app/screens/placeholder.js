// A screen not built yet: its entry in the navigation and its h1 (drawn by the shell), and a note. Replace the module
// of a screen with its real one; keep id, path, roles and title.
import { html } from '../lib/html.js';
import { EmptyState } from '../lib/components.js';

export const ALL_ROLES = Object.freeze(['owner', 'admin', 'approver', 'operator', 'viewer']);

export function placeholder({ id, path, roles = ALL_ROLES, title }) {
  return {
    id, path, roles, title, messages: { en: {}, zh: {} },
    Screen: ({ t }) => html`<${EmptyState}>${t('placeholder')}</${EmptyState}>`,
  };
}
