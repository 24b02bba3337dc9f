import { ALL_ROLES, placeholder } from './placeholder.js';

export default placeholder({ id: 'books', path: '/books', roles: ALL_ROLES, title: { en: 'Books', zh: '账簿' } });
