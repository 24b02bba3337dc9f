import type { Application } from '../../../core/application/index.js';
import { defineRoute, type RouteDef } from '../route.js';
import { itemsPage, s } from '../openapi-schemas.js';
import { pageQuery } from './wallet.routes.js';
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
      method: 'GET', path: '/api/admin/workflows/failed', auth: 'admin',
      docs: {
        operationId: 'listFailedWorkflows',
        summary: 'Failed commands and collection tasks of every account, with their last error (extension, issue #38)', tag: 'Admin',
        description: 'For the operator console: the commands (every type) and collection tasks that ended FAILED within the last '
          + '`days` days, newest first, each with its account, error code and last error; `truncated` when a list reached its '
          + '100-row read; and the collection tasks of every account per status (those neither DONE nor FAILED are in flight).',
        query: { days: { schema: s.int('1 to 30, default 7'), description: 'how far back, in days' } },
        data: s.obj({
          since: s.str('ISO 8601 with offset: the window\'s start'),
          items: s.arr(s.obj({
            kind: s.enumOf(['command', 'collection']), id: s.str('the command number or the collection task number'), user_id: s.int(),
            type: s.str('the command type (WITHDRAWAL, STAKE, …) or COLLECTION'), address: s.nullable(s.str()),
            error_code: s.nullable(s.str()), last_error: s.nullable(s.str()), finished_at: s.nullable(s.str('ISO 8601 with offset')),
          })),
          truncated: s.bool(),
          collections_by_status: s.map(s.int()),
        }),
        example: {
          since: '2026-05-18T10:00:00+00:00',
          items: [{
            kind: 'command', id: 'C202605250001', user_id: 7, type: 'WITHDRAWAL', address: EX.to, error_code: 'CHAIN-TRANSACTION-FAILED',
            last_error: 'the transaction failed on chain: OUT_OF_ENERGY', finished_at: '2026-05-25T10:00:00+00:00',
          }],
          truncated: false, collections_by_status: { DONE: 41, FAILED: 1, COLLECTING: 2 },
        },
      },
      handle: ({ query }) => app.admin.listFailedWorkflows(query),
    }),
    defineRoute({
      method: 'GET', path: '/api/admin/webhooks/deliveries/dead', auth: 'admin',
      docs: {
        operationId: 'listDeadDeliveries',
        summary: 'DEAD webhook deliveries of every account, newest first (extension, issue #38)', tag: 'Admin',
        description: 'For the operator console: each delivery the retry schedule gave up on, with its account, event type, URL, '
          + 'the number of attempts and how the last one ended. No payload; the merchant\'s own log '
          + '(GET /webhooks/deliveries) has it, and redelivery is the merchant\'s.',
        query: pageQuery,
        data: itemsPage(s.obj({
          delivery_id: s.str(), user_id: s.int(), event_type: s.str(), url: s.nullable(s.str()), attempts: s.int(),
          last_attempt_at: s.nullable(s.str('ISO 8601 with offset')), last_http_status: s.nullable(s.int()), last_error: s.nullable(s.str()),
          created_at: s.str('ISO 8601 with offset'),
        })),
        example: {
          items: [{
            delivery_id: 'd3f1c2a4-5b6c-4d7e-8f90-0123456789ab', user_id: 7, event_type: 'collection.completed',
            url: 'https://merchant.example.com/hooks/custody', attempts: 8, last_attempt_at: '2026-05-25T10:00:00+00:00',
            last_http_status: 503, last_error: 'HTTP 503', created_at: '2026-05-24T09:00:00+00:00',
          }],
          pagination: { page: 1, per_page: 20, total: 1, pages: 1 },
        },
      },
      handle: ({ query }) => app.admin.listDeadDeliveries(query),
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
