import type { Application } from '../../../core/application/index.js';
import { defineRoute, type RouteDef } from '../route.js';
import { s } from '../openapi-schemas.js';
import { COMPONENT_EXAMPLES, EX } from '../openapi-examples.js';

/** DESIGN.md "Platform (admin) operations" with ADMIN_TOKEN. */
export function adminRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/admin/webhooks/pending', auth: 'admin',
      docs: { operationId: 'listPendingWebhooks', summary: 'Webhook URLs waiting for review', tag: 'Admin', data: s.arr(s.ref('PendingWebhook')) },
      handle: () => app.admin.listPendingWebhooks(),
    }),
    defineRoute({
      method: 'POST', path: '/api/admin/webhooks/:userId/approve', auth: 'admin',
      docs: {
        operationId: 'approveWebhook',
        summary: 'Approve the pending webhook URL of a user: the body names the exact URL reviewed (409 REVIEW-STALE once another is pending)',
        tag: 'Admin', body: s.obj({ url: s.str() }), bodyExample: { url: 'https://merchant.example.com/hooks/custody' },
        data: s.ref('WebhookStatus'), errors: ['BIZ-USER-NOT-FOUND', 'BIZ-WEBHOOK-NOT-PENDING', 'REVIEW-STALE'],
      },
      handle: ({ params, body }) => app.admin.approveWebhook(params.userId ?? '', body),
    }),
    defineRoute({
      method: 'POST', path: '/api/admin/webhooks/:userId/reject', auth: 'admin',
      docs: {
        operationId: 'rejectWebhook',
        bodyExample: { note: 'the URL answers 404' },
        summary: 'Reject the pending webhook URL with a note', tag: 'Admin', body: s.obj({ note: s.str() }),
        data: s.ref('WebhookStatus'), errors: ['BIZ-USER-NOT-FOUND', 'BIZ-WEBHOOK-NOT-PENDING'],
      },
      handle: ({ params, body }) => app.admin.rejectWebhook(params.userId ?? '', body),
    }),
    defineRoute({
      method: 'POST', path: '/api/admin/commands/:commandNo/cancel', auth: 'admin',
      docs: {
        operationId: 'cancelCommand',
        example: { ...COMPONENT_EXAMPLES.Command, status: 6, finished_at: '2026-05-25 10:00:00' },
        summary: 'Cancel a command before anything was broadcast', tag: 'Admin', data: s.ref('Command'),
        errors: ['BIZ-COMMAND-NOT-FOUND', 'BIZ-COMMAND-NOT-CANCELLABLE'],
      },
      handle: ({ params }) => app.admin.cancelCommand(params.commandNo ?? ''),
    }),
    defineRoute({
      method: 'GET', path: '/api/admin/risk/deny', auth: 'admin',
      docs: { operationId: 'listDenyList', summary: 'The risk deny-list', tag: 'Admin', data: s.arr(s.ref('RiskEntry')) },
      handle: () => app.admin.listRisk(),
    }),
    defineRoute({
      method: 'POST', path: '/api/admin/risk/deny', auth: 'admin', status: 201,
      docs: {
        operationId: 'addDenyListEntry',
        bodyExample: { kind: 'address', value: EX.to, reason: 'sanctions list match' },
        summary: 'Add (or replace) a deny-list entry', tag: 'Admin',
        body: s.obj({ kind: s.enumOf(['user', 'address']), value: s.str(), reason: s.str() }, ['reason']), data: s.ref('RiskEntry'),
      },
      handle: ({ body }) => app.admin.denyRisk(body),
    }),
    defineRoute({
      method: 'DELETE', path: '/api/admin/risk/deny/:kind/:value', auth: 'admin',
      docs: {
        operationId: 'removeDenyListEntry',
        example: { removed: true }, summary: 'Remove a deny-list entry', tag: 'Admin', data: s.obj({ removed: s.bool() }),
      },
      handle: ({ params }) => app.admin.allowRisk({ kind: params.kind, value: params.value }),
    }),
    defineRoute({
      method: 'PUT', path: '/api/admin/users/:userId/quota', auth: 'admin',
      docs: {
        operationId: 'setUserQuota',
        bodyExample: { max_sub_addresses: 500 },
        summary: 'Set a user\'s sub-address quota (-1 unlimited)', tag: 'Admin', body: s.obj({ max_sub_addresses: s.int() }),
        data: s.ref('Quota'), errors: ['BIZ-USER-NOT-FOUND', 'BIZ-SUB-ADDRESS-SUBSCRIPTION-REQUIRED'],
      },
      handle: ({ params, body }) => app.admin.setQuota(params.userId ?? '', body),
    }),
  ];
}
