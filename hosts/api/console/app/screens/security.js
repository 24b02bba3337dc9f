import { ALL_ROLES, placeholder } from './placeholder.js';

export default placeholder({ id: 'security', path: '/security', roles: ALL_ROLES, title: { en: 'Security', zh: '安全' } });
