import { ALL_ROLES, placeholder } from './placeholder.js';

export default placeholder({ id: 'collections', path: '/collections', roles: ALL_ROLES, title: { en: 'Collections', zh: '归集' } });
