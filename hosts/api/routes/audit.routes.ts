import type { Application } from '../../../core/application/index.js';
import { AUDIT_ACTIONS } from '../../../core/domain/model/audit.js';
import { defineRoute, type RouteDef } from '../route.js';
import { itemsPage, s } from '../openapi-schemas.js';
import { pageQuery } from './wallet.routes.js';

const HASH = { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256, lower-case hex' } as const;

/** One audit entry (issue #26 item 5); inline here, beside the routes that answer it. */
const ENTRY = s.obj({
  seq: s.int('1, 2, 3, … per account, without gaps'),
  at: { type: 'string', description: 'ISO 8601 with offset' },
  action: s.enumOf(AUDIT_ACTIONS),
  actor: s.obj({
    kind: s.enumOf(['user', 'api_token', 'admin', 'approver', 'system']),
    id: s.nullable(s.str('e.g. the API token id; null when the kind says it all')),
  }),
  detail: { type: 'object', additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] }, description: 'flat facts of the event; amounts as integer strings; never a secret' },
  prev_hash: { ...HASH, description: 'the previous entry\'s hash; 64 zeros for seq 1' },
  hash: { ...HASH, description: 'SHA-256 of the canonical encoding of every other field (docs/integration.md, "The audit log")' },
});

const VERIFICATION = s.obj({
  valid: s.bool(),
  entries: s.int('entries checked (up to the break when not valid)'),
  head_seq: s.nullable(s.int()),
  head_hash: s.nullable(HASH),
  broken_at: s.nullable(s.int('seq of the first entry that breaks the chain')),
  reason: s.nullable(s.enumOf(['wrong-account', 'sequence-gap', 'broken-link', 'hash-mismatch', 'head-mismatch'])),
});

const EXAMPLE_ENTRY = {
  seq: 2, at: '2026-01-01T12:00:03+00:00', action: 'withdrawal.requested', actor: { kind: 'user', id: null },
  detail: { command_no: 'CMD20260101120003A1B2C3', from_address: 'TPL66VK2gCXNCD7EJg9pgJRfqcRazjhUZY', to_address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', asset_symbol: 'USDT', amount: '25000000' },
  prev_hash: '3f1c9a0e5b7d2c4a6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f',
  hash: '9b2e4d6f8a0c1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f',
};
const EXAMPLE_PAGE = { items: [EXAMPLE_ENTRY], pagination: { page: 1, per_page: 20, total: 2, pages: 1 } };
const EXAMPLE_VERIFICATION = { valid: true, entries: 2, head_seq: 2, head_hash: EXAMPLE_ENTRY.hash, broken_at: null, reason: null };

const DESCRIPTION = [
  'An append-only log per account of security-relevant events: logins and failed logins, two-factor changes, API tokens,',
  'webhook URL and secret changes, withdrawal policy changes, withdrawals and their approvals. Newest first. Each entry',
  'carries the previous entry\'s hash and its own, so a changed, removed, reordered or inserted entry shows',
  '(docs/integration.md, "The audit log").',
].join('\n');

/** The account's audit log (issue #26 item 5): its own with a session; any account's with ADMIN_TOKEN. */
export function auditRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/audit-log', auth: 'session',
      docs: {
        operationId: 'listAuditLog', summary: 'The caller\'s audit log', tag: 'Account', description: DESCRIPTION,
        query: { ...pageQuery }, data: itemsPage(ENTRY), example: EXAMPLE_PAGE,
      },
      handle: ({ caller, query }) => app.audit.list(caller.userId, query),
    }),
    defineRoute({
      method: 'GET', path: '/api/audit-log/verify', auth: 'session',
      docs: {
        operationId: 'verifyAuditLog', summary: 'Check the caller\'s audit chain', tag: 'Account',
        description: 'Checks every entry of the caller\'s chain from the first; `valid: false` names the first entry that breaks it.',
        data: VERIFICATION, example: EXAMPLE_VERIFICATION,
      },
      handle: ({ caller }) => app.audit.verify(caller.userId),
    }),
    defineRoute({
      method: 'GET', path: '/api/admin/users/:userId/audit-log', auth: 'admin',
      docs: {
        operationId: 'adminListAuditLog', summary: 'Any account\'s audit log', tag: 'Admin', query: { ...pageQuery },
        data: itemsPage(ENTRY), example: EXAMPLE_PAGE, errors: ['BIZ-USER-NOT-FOUND'],
      },
      handle: ({ params, query }) => app.audit.listOfUser(params.userId ?? '', query),
    }),
    defineRoute({
      method: 'GET', path: '/api/admin/users/:userId/audit-log/verify', auth: 'admin',
      docs: {
        operationId: 'adminVerifyAuditLog', summary: 'Check any account\'s audit chain', tag: 'Admin',
        data: VERIFICATION, example: EXAMPLE_VERIFICATION, errors: ['BIZ-USER-NOT-FOUND'],
      },
      handle: ({ params }) => app.audit.verifyOfUser(params.userId ?? ''),
    }),
  ];
}
