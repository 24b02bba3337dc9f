import { ALL_ROLES, placeholder } from './placeholder.js';

export default placeholder({ id: 'deposits', path: '/deposits', roles: ALL_ROLES, title: { en: 'Deposits', zh: '充值' } });
