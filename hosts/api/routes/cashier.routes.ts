import type { Application } from '../../../core/application/index.js';
import { defineRoute, type RouteDef } from '../route.js';
import { DUST_REFUSAL, ENERGY_REFUSAL } from './collection.routes.js';
import { s } from '../openapi-schemas.js';
import { addressQrSvg } from '../cashier-page/address-qr.js';
import { pickLanguage } from '../cashier-page/messages.js';
import { PAYER_PAGE_HEADERS, PAYER_PAGE_SCRIPT_PATH, PAYER_PAGES, payerPageScript } from '../cashier-page/payer-page.js';

const CASHIER_ERRORS = ['CASHIER-TOKEN-MISSING', 'CASHIER-TOKEN-INVALID'];

/** Spec §4 "Cashier payment API" (cashier token as bearer) and the payer page at the cashier URL. */
export function cashierRoutes(app: Application): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/cashier/session', auth: 'cashier',
      docs: { operationId: 'getCashierSession', summary: 'The payment session', tag: 'Cashier payment', data: s.ref('CashierSession'), errors: CASHIER_ERRORS },
      handle: ({ caller }) => app.cashier.session(caller.ctx),
    }),
    defineRoute({
      method: 'GET', path: '/api/cashier/balance', auth: 'cashier',
      docs: {
        operationId: 'getCashierBalance',
        summary: 'Cached balance of the session\'s sub-address', tag: 'Cashier payment', data: s.ref('CashierBalance'), errors: CASHIER_ERRORS,
      },
      handle: ({ caller }) => app.cashier.balance(caller.ctx),
    }),
    // Extension (issue #24 item 5): the spec's balance keeps exactly its fields; what a collection would move lives beside it.
    defineRoute({
      method: 'GET', path: '/api/cashier/collectable', auth: 'cashier',
      docs: {
        operationId: 'getCashierCollectable',
        summary: 'Cached balance with what a collection of each asset would move (extension; slides the expiry like the balance)',
        description: 'The payer page reads this instead of GET /cashier/balance (one GET of the 60 a minute, not two): the same cached '
          + 'balance, and per asset `balance_collectable`, the amount POST /cashier/collect would sweep. Dust, a balance a sweep cannot '
          + 'move, is "0" and is never offered to the payer.',
        tag: 'Cashier payment', data: s.ref('CashierCollectable'), errors: CASHIER_ERRORS,
      },
      handle: ({ caller }) => app.cashier.collectable(caller.ctx),
    }),
    defineRoute({
      method: 'GET', path: '/api/cashier/task', auth: 'cashier',
      docs: {
        operationId: 'getCashierTask',
        summary: 'Latest collection task of the session, or null', tag: 'Cashier payment', data: s.nullable(s.ref('CashierTask')), errors: CASHIER_ERRORS,
      },
      handle: ({ caller }) => app.cashier.task(caller.ctx),
    }),
    defineRoute({
      method: 'POST', path: '/api/cashier/collect', auth: 'cashier', status: 201, rateLimit: 'cashier-collect', idempotent: true,
      docs: {
        operationId: 'cashierCollect',
        bodyExample: { asset_symbol: 'USDT' },
        summary: 'Trigger the collection of the session\'s sub-address', tag: 'Cashier payment',
        description: `${DUST_REFUSAL} A sweepable amount below the asset's entry in min_collect_amounts is refused with the same code; `
          + `GET /cashier/collectable shows the sweepable amount as \`balance_collectable\`. ${ENERGY_REFUSAL}`,
        body: s.obj({ asset_symbol: s.str() }), data: s.ref('CashierTask'),
        errors: [...CASHIER_ERRORS, 'RISK-REVIEW-BLOCKED', 'BIZ-COMMAND-LOCKED', 'BIZ-ASSET-NOT-FOUND', 'BIZ-AMOUNT-BELOW-MINIMUM', 'BIZ-ENERGY-UNAVAILABLE'],
      },
      handle: ({ caller, body }) => app.cashier.collect(caller.ctx, body),
    }),
    defineRoute({
      method: 'GET', path: '/api/cashier/qr', auth: 'cashier',
      docs: {
        operationId: 'getCashierQrCode',
        example: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 41 41"><path fill="#fff" d="M0 0h41v41H0z"/><path d="M4 4.5h7…"/></svg>',
        summary: 'QR code (SVG) of the session\'s sub-address, for the payer page (extension; does not slide the expiry)',
        tag: 'Cashier payment', data: s.empty(), produces: 'image/svg+xml', errors: CASHIER_ERRORS,
      },
      handle: async ({ caller }) => ({ raw: { contentType: 'image/svg+xml', body: await addressQrSvg(caller.ctx.token.address) } }),
    }),
    defineRoute({
      method: 'GET', path: '/cashier', auth: 'none',
      docs: {
        operationId: 'getPayerPage',
        example: '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Payment</title>…</head><body>…</body></html>\n',
        summary: 'Payer page (`?ct=<token>`), in English or Simplified Chinese by Accept-Language; calls the payment API from the browser',
        tag: 'Cashier payment', data: s.empty(), produces: 'text/html',
      },
      handle: ({ headers }) => {
        const lang = pickLanguage(headers.get('accept-language'));
        return Promise.resolve({
          raw: { contentType: 'text/html; charset=utf-8', body: PAYER_PAGES[lang], headers: { ...PAYER_PAGE_HEADERS, 'content-language': lang } },
        });
      },
    }),
    // The page's only script, a file rather than inline code: the page's CSP allows scripts from this origin only.
    defineRoute({
      method: 'GET', path: PAYER_PAGE_SCRIPT_PATH, auth: 'none',
      docs: {
        operationId: 'getPayerPageScript',
        example: '\'use strict\';\n// What the payer page of a payment request shows (issue #34), …\n',
        summary: 'The payer page\'s script (extension; the page links it with its version)', tag: 'Cashier payment',
        description: 'GET /cashier links it with its version as the query parameter `v` (never refused): under the current version it may be '
          + 'cached for a year (`Cache-Control: public, max-age=31536000, immutable`); without `v`, or under another, it is revalidated on each '
          + 'use (`no-cache`).',
        data: s.empty(), produces: 'text/javascript',
      },
      handle: ({ query }) => Promise.resolve({ raw: payerPageScript(query['v']) }),
    }),
  ];
}
