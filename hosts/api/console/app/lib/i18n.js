// English and Simplified Chinese (issue #38 item 6), like the payer page: the language is the one chosen with the
// switch (remembered in localStorage), else navigator.language ("zh…" -> Chinese), else English.
import { COMMON_MESSAGES } from './messages.js';

export const LANGUAGES = [{ tag: 'en', name: 'English' }, { tag: 'zh', name: '简体中文' }];
const KEY = 'custody-hub.console.lang';

export function initialLanguage() {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved === 'en' || saved === 'zh') return saved;
  } catch { /* storage may be off */ }
  return (navigator.language ?? 'en').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export function rememberLanguage(lang) {
  try { localStorage.setItem(KEY, lang); } catch { /* storage may be off */ }
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
}

/**
 * The translate function of a screen: its own messages first, then the shell's common ones, then English, then the
 * key. `{name}` placeholders are filled from `vars`.
 */
export function translator(lang, messages = {}) {
  return (key, vars) => {
    const text = messages[lang]?.[key] ?? COMMON_MESSAGES[lang]?.[key] ?? messages.en?.[key] ?? COMMON_MESSAGES.en[key] ?? key;
    return vars === undefined ? text : text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
  };
}
