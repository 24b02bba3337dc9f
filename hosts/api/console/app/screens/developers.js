import { placeholder } from './placeholder.js';

export default placeholder({ id: 'developers', path: '/developers', roles: ['owner', 'admin'], title: { en: 'Developers', zh: '开发者' } });
