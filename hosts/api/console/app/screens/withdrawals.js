import { ALL_ROLES, placeholder } from './placeholder.js';

export default placeholder({ id: 'withdrawals', path: '/withdrawals', roles: ALL_ROLES, title: { en: 'Withdrawals', zh: '提现' } });
