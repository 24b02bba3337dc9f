import QRCode from 'qrcode';
import type { Application } from '../../../core/application/index.js';
import { BODY_ADDRESS_STATUSES } from '../error-status.js';
import { defineRoute, type RouteDef } from '../route.js';
import { metaPage, s } from '../openapi-schemas.js';
import { COMPONENT_EXAMPLES, EX } from '../openapi-examples.js';
import { requestOrigin } from '../public-origin.js';

/** The payer link as an SVG QR code (error correction M, a 2-module quiet zone), as the 2FA key's and the address's are. */
function payerUrlQrSvg(url: string): Promise<string> {
  return QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } });
}

/** Spec §4 "Cashier token management" (Developer API Token). */
export function cashierTokenRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'POST', path: '/api/cashier/tokens', auth: 'developer', status: 201, rateLimit: 'cashier-token-create',
      errorStatuses: BODY_ADDRESS_STATUSES,
      docs: {
        operationId: 'createCashierToken',
        bodyExample: {
          address: EX.sub, ttl_minutes: 60, amount: '25000000', asset_symbol: 'USDT', reference: 'order-1042', pay_within_minutes: 30,
        },
        summary: 'Issue a cashier token for a sub-address (optionally with a payment request: an amount to pay)', tag: 'Cashier tokens',
        body: s.obj({
          address: s.str(), ttl_minutes: s.enumOf([60, 120, 480, 1440]),
          amount: {
            ...s.amount(),
            description: 'Extension (issue #25): the amount to pay, smallest unit, with asset_symbol. The token then carries a payment '
              + 'request: the payer page shows it, its status follows the confirmed deposits, and once paid (or overpaid) its '
              + 'collection starts by itself. An amount no sweep could forward (dust) is refused. Without the payment fields the '
              + 'token is exactly the spec\'s',
          },
          asset_symbol: { ...s.str(), description: 'Extension (issue #25): the asset asked for; required with amount (422 BIZ-ASSET-NOT-FOUND if unknown)' },
          reference: { ...s.str(), maxLength: 120, description: 'Extension (issue #25): the merchant\'s order id, shown to the payer and in payment events' },
          description: { ...s.str(), maxLength: 200, description: 'Extension (issue #25): what is paid for, shown to the payer' },
          pay_within_minutes: {
            ...s.int(), minimum: 1, maximum: 1440,
            description: 'Extension (issue #25): the fixed payment deadline from now; default ttl_minutes. Unlike expires_at it never slides. '
              + 'The token lives at least until it (issue #34): its first expires_at is the later of now + ttl_minutes and the deadline',
          },
        }, ['ttl_minutes', 'amount', 'asset_symbol', 'reference', 'description', 'pay_within_minutes']),
        data: s.ref('CashierTokenCreated'),
        errors: ['BIZ-WALLET-ADDRESS-NOT-FOUND', 'BIZ-ADDRESS-TYPE-NOT-SUB', 'CASHIER-TOKEN-ACTIVE-EXISTS', 'BIZ-ASSET-NOT-FOUND'],
        description: 'A 409 CASHIER-TOKEN-ACTIVE-EXISTS names the active token in its message (its token_no and expires_at, and '
          + 'DELETE /cashier/tokens/{tokenNo} to end it); the failure body stays the spec\'s (code, message, empty data).',
      },
      handle: async ({ caller, body, headers }) => {
        const payerBase = requestOrigin(headers);
        const created = await app.cashierTokens.create(caller.userId, body, payerBase === undefined ? {} : { payerBase });
        // Issue #38: the payer link's QR code, rendered here as the 2FA key's is (the link holds the token, shown only now).
        return created.payer_url === undefined ? created : { ...created, payer_qr_svg: await payerUrlQrSvg(created.payer_url) };
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/cashier/tokens', auth: 'developer',
      docs: {
        operationId: 'listCashierTokens',
        example: { data: [COMPONENT_EXAMPLES.CashierToken], meta: { current_page: 1, per_page: 15, total: 1, last_page: 1 } },
        summary: 'List the caller\'s cashier tokens', tag: 'Cashier tokens',
        query: {
          page: { schema: s.int(), description: 'default 1' }, per_page: { schema: s.int(), description: 'default 15, max 100' },
          reference: {
            schema: { ...s.str(), minLength: 1, maxLength: 120 },
            description: 'Extension (issue #34): only the tokens whose payment request carries exactly this reference (the merchant\'s '
              + 'order id given at create; case and spaces count), newest first. Absent: every token',
          },
        },
        data: metaPage(s.ref('CashierToken')),
      },
      handle: ({ caller, query }) => app.cashierTokens.list(caller.userId, query),
    }),
    defineRoute({
      method: 'GET', path: '/api/cashier/tokens/:tokenNo', auth: 'developer',
      docs: {
        operationId: 'getCashierToken',
        summary: 'One cashier token with its payment request judged now (extension, issue #34)', tag: 'Cashier tokens',
        description: 'The record of the list (without `token`). A token of another account is as unknown as a missing one.',
        data: s.ref('CashierToken'), errors: ['CASHIER-TOKEN-NOT-FOUND'],
      },
      handle: ({ caller, params }) => app.cashierTokens.get(caller.userId, params.tokenNo ?? ''),
    }),
    defineRoute({
      method: 'DELETE', path: '/api/cashier/tokens/:tokenNo', auth: 'developer', rateLimit: 'cashier-token-disable',
      docs: {
        operationId: 'disableCashierToken',
        bodyExample: { reason: 'order cancelled' },
        summary: 'Disable a cashier token', tag: 'Cashier tokens', body: s.obj({ reason: s.str() }, ['reason']),
        data: s.ref('CashierTokenDisabled'), errors: ['CASHIER-TOKEN-NOT-FOUND', 'CASHIER-TOKEN-ALREADY-DISABLED'],
      },
      handle: ({ caller, params, body }) => app.cashierTokens.disable(caller.userId, params.tokenNo ?? '', body),
    }),
  ];
}
