import { ALL_ROLES, placeholder } from './placeholder.js';

export default placeholder({ id: 'addresses', path: '/addresses', roles: ALL_ROLES, title: { en: 'Addresses', zh: '地址' } });
