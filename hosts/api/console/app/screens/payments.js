import { ALL_ROLES, placeholder } from './placeholder.js';

export default placeholder({ id: 'payments', path: '/payments', roles: ALL_ROLES, title: { en: 'Payments', zh: '收款' } });
