import { ALL_ROLES, placeholder } from './placeholder.js';

export default placeholder({ id: 'dashboard', path: '/dashboard', roles: ALL_ROLES, title: { en: 'Dashboard', zh: '概览' } });
