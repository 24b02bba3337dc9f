import type { Application } from '../../../core/application/index.js';
import { BODY_ADDRESS_STATUSES } from '../error-status.js';
import { defineRoute, OPERATOR_ROLES, type RouteDef } from '../route.js';
import { s } from '../openapi-schemas.js';
import { EX } from '../openapi-examples.js';

const LOCKED = ['BIZ-WALLET-ADDRESS-NOT-FOUND', 'BIZ-COMMAND-LOCKED', 'RISK-REVIEW-BLOCKED'];
const resourceAmount = s.obj({ resource: s.enumOf(['ENERGY', 'BANDWIDTH']), amount: s.amount() });

/** DESIGN.md "Commands": withdrawals and staking, each accepted as a PENDING command (session token). */
export function fundsRoutes(app: Application): RouteDef[] {
  const accepted = s.ref('CommandAccepted');
  return [
    defineRoute({
      method: 'POST', path: '/api/transfers', roles: OPERATOR_ROLES, auth: 'session', status: 201, rateLimit: 'transfer-create', idempotent: true, stepUp: true,
      errorStatuses: BODY_ADDRESS_STATUSES,
      docs: {
        operationId: 'createTransfer',
        bodyExample: { from_address: EX.main, to_address: EX.to, asset_symbol: 'USDT', amount: '1500000' },
        summary: 'Withdraw from an owned address', tag: 'Funds',
        description: [
          'A PENDING WITHDRAWAL command; the worker signs and sends it and ends it with a `withdrawal.*` event.',
          '',
          'A sub-address that cannot pay its own fees (it holds only the token: a refund from the paying sub-address) gets',
          'them from the main address as a collection does (issue #34): the TRX it lacks, energy by self-delegation, rental',
          'or burning; the command stays RUNNING until the refund is confirmed and the delegation and leftover TRX are back',
          'on the main address, then ends SUCCESS. When neither can pay them: 422 `BIZ-FEES-UNFUNDABLE`, naming what is',
          'missing and the fixes, before any command.',
          '',
          'Extension (issue #36): with `refund_of`, the `token_no` of a payment request of yours, the withdrawal is a refund of that',
          'payment: in its asset (else 422 VALIDATION-ERROR on asset_symbol), only once it received something (422',
          '`REFUND-PAYMENT-UNPAID`) and never beyond what it received, less its other refunds still counting (422',
          '`REFUND-EXCEEDS-RECEIVED`, naming what is left); an unknown token, another account\'s, or one without a payment request is',
          '422 `REFUND-PAYMENT-NOT-FOUND`. It is listed under the payment (`payment.refunds` on GET /api/cashier/tokens/{tokenNo}) and',
          'booked as `refund` in the ledger and the statement (`refunded`).',
        ].join('\n'),
        body: s.obj({
          from_address: s.str(), to_address: s.str(), asset_symbol: s.str(), amount: s.amount(),
          refund_of: s.str('extension (issue #36): the token_no of the paid request this withdrawal refunds'),
        }, ['refund_of']),
        data: accepted, errors: [
          ...LOCKED, 'BIZ-ASSET-NOT-FOUND', 'BIZ-AMOUNT-INVALID', 'POLICY-DESTINATION-NOT-ALLOWED', 'POLICY-DESTINATION-COOLING-OFF', 'POLICY-DESTINATION-HELD',
          'POLICY-VELOCITY-COUNT-EXCEEDED', 'POLICY-VELOCITY-AMOUNT-EXCEEDED', 'POLICY-APPROVAL-UNAVAILABLE',
          // Issue #34: a sub-address that cannot pay its fees, under a main address that cannot fund them.
          'BIZ-FEES-UNFUNDABLE',
          // Issue #36 item 4: refunds of a payment request (refund_of).
          'REFUND-PAYMENT-NOT-FOUND', 'REFUND-PAYMENT-UNPAID', 'REFUND-EXCEEDS-RECEIVED',
        ],
      },
      handle: ({ caller, body }) => app.transfers.create(caller.userId, body),
    }),
    defineRoute({
      method: 'POST', path: '/api/wallets/:address/stake', auth: 'session', status: 201, rateLimit: 'staking', idempotent: true, stepUp: true,
      docs: {
        operationId: 'stake',
        bodyExample: { resource: 'ENERGY', amount: '5000000000' },
        summary: 'Stake TRX for energy or bandwidth', tag: 'Funds', body: resourceAmount, data: accepted, errors: [...LOCKED, 'BIZ-AMOUNT-INVALID'],
      },
      handle: ({ caller, params, body }) => app.staking.stake(caller.userId, params.address ?? '', body),
    }),
    defineRoute({
      method: 'POST', path: '/api/wallets/:address/unstake', auth: 'session', status: 201, rateLimit: 'staking', idempotent: true, stepUp: true,
      docs: {
        operationId: 'unstake',
        bodyExample: { resource: 'ENERGY', amount: '5000000000' },
        summary: 'Unstake TRX', tag: 'Funds', body: resourceAmount, data: accepted, errors: [...LOCKED, 'BIZ-AMOUNT-INVALID'],
      },
      handle: ({ caller, params, body }) => app.staking.unstake(caller.userId, params.address ?? '', body),
    }),
    defineRoute({
      method: 'POST', path: '/api/wallets/:address/withdraw-unstaked', auth: 'session', status: 201, rateLimit: 'staking', idempotent: true, stepUp: true,
      docs: { operationId: 'withdrawUnstaked', summary: 'Withdraw TRX past the unstaking wait', tag: 'Funds', data: accepted, errors: LOCKED },
      handle: ({ caller, params }) => app.staking.withdrawUnstaked(caller.userId, params.address ?? ''),
    }),
    defineRoute({
      method: 'POST', path: '/api/wallets/:address/vote', auth: 'session', status: 201, rateLimit: 'staking', idempotent: true, stepUp: true,
      docs: {
        operationId: 'vote',
        bodyExample: { votes: [{ witness: 'TLyqzVGLV1srkB7dToTAEqgDSfPtXRJZYH', count: 100 }] },
        summary: 'Vote for witnesses', tag: 'Funds', body: s.obj({ votes: s.arr(s.obj({ witness: s.str(), count: s.int() })) }),
        data: accepted, errors: LOCKED,
      },
      handle: ({ caller, params, body }) => app.staking.vote(caller.userId, params.address ?? '', body),
    }),
    defineRoute({
      method: 'POST', path: '/api/wallets/:address/withdraw-reward', auth: 'session', status: 201, rateLimit: 'staking', idempotent: true, stepUp: true,
      docs: { operationId: 'withdrawReward', summary: 'Withdraw voting rewards', tag: 'Funds', data: accepted, errors: LOCKED },
      handle: ({ caller, params }) => app.staking.withdrawReward(caller.userId, params.address ?? ''),
    }),
  ];
}
