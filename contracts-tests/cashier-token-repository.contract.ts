import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { PaymentRequest } from '../core/domain/model/payment-request.js';
import type { CashierTokenRepository } from '../core/ports/cashier-token-repository.port.js';
import type { UnitOfWork } from '../core/ports/unit-of-work.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject } from './support/contract-options.js';
import { aCashierToken, addressOf, anEvent, MINUTE, T0 } from './support/fixtures.js';

/** What the cashier-token contract needs: an empty repository, and the unit of work of the same store (payments). */
export interface CashierTokenRepositorySubject extends Closable {
  readonly cashierTokens: CashierTokenRepository;
  readonly uow: UnitOfWork;
}

/** A payment request as a token carries it (issue #25). */
function aPayment(overrides: Partial<PaymentRequest> = {}): PaymentRequest {
  return {
    assetSymbol: 'USDT', amount: 25_000_000n, reference: 'order-1', description: null, deadline: T0 + 30 * MINUTE,
    status: 'awaiting', received: 0n, collect: null, watched: true, ...overrides,
  };
}

/** The CashierTokenRepository contract (core/ports/cashier-token-repository.port.ts). */
export function describeCashierTokenRepositoryContract(
  name: string,
  makeSubject: MakeSubject<CashierTokenRepositorySubject>,
  options: ContractOptions<CashierTokenRepositorySubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  describe(`CashierTokenRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('inserts and finds by token hash and by token number', async () => {
      const { cashierTokens } = subject();
      expect(await cashierTokens.insert(aCashierToken(), T0)).toBe('created');
      expect(await cashierTokens.findByTokenHash('c3'.repeat(32))).toEqual(aCashierToken());
      expect(await cashierTokens.findByTokenNo('CT0001')).toEqual(aCashierToken());
      expect(await cashierTokens.findByTokenHash('00'.repeat(32))).toBeNull();
      expect(await cashierTokens.findByTokenNo('CT9999')).toBeNull();
    });

    it('refuses a second token while the address has an active, unexpired one', async () => {
      const { cashierTokens } = subject();
      await cashierTokens.insert(aCashierToken(), T0);
      const second = aCashierToken({ tokenNo: 'CT2', tokenHash: 'd5'.repeat(32) });
      expect(await cashierTokens.insert(second, T0 + 59 * MINUTE)).toBe('active-exists');
      expect(await cashierTokens.findByTokenNo('CT2')).toBeNull();
      expect(await cashierTokens.insert(aCashierToken({ tokenNo: 'CT3', tokenHash: 'e6'.repeat(32), address: addressOf(2) }), T0)).toBe('created');
    });

    it('an expired token (expiresAt <= now) or a disabled one does not count as active', async () => {
      const { cashierTokens } = subject();
      await cashierTokens.insert(aCashierToken(), T0);
      expect(await cashierTokens.insert(aCashierToken({ tokenNo: 'CT2', tokenHash: 'd5'.repeat(32), createdAt: T0 + 60 * MINUTE }), T0 + 60 * MINUTE)).toBe('created');
      await cashierTokens.update(aCashierToken({ tokenNo: 'CT2', tokenHash: 'd5'.repeat(32), createdAt: T0 + 60 * MINUTE, status: 'disabled', disabledAt: T0 + 61 * MINUTE, disableReason: 'done', version: 2 }));
      expect(await cashierTokens.insert(aCashierToken({ tokenNo: 'CT3', tokenHash: 'e6'.repeat(32) }), T0 + 62 * MINUTE)).toBe('created');
    });

    it(`of ${concurrency} concurrent creates for one address exactly one is created`, async () => {
      const { cashierTokens } = subject();
      const outcomes = await Promise.all(Array.from({ length: concurrency }, (_, i) =>
        cashierTokens.insert(aCashierToken({ tokenNo: `CT${i}`, tokenHash: String(i).padStart(64, '0') }), T0)));
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
    });

    it('lists the user\'s tokens newest first, paged with the total', async () => {
      const { cashierTokens } = subject();
      for (const i of [2, 1, 3]) {
        await cashierTokens.insert(aCashierToken({ tokenNo: `CT${i}`, tokenHash: String(i).padStart(64, '0'), address: addressOf(i), createdAt: T0 + i }), T0);
      }
      await cashierTokens.insert(aCashierToken({ tokenNo: 'OTHER', tokenHash: 'f'.repeat(64), userId: 2, address: addressOf(9) }), T0);
      const page = await cashierTokens.listByUser(1, { offset: 0, limit: 2 });
      expect(page.items.map((t) => t.tokenNo)).toEqual(['CT3', 'CT2']);
      expect(page.total).toBe(3);
      expect((await cashierTokens.listByUser(1, { offset: 2, limit: 2 })).items.map((t) => t.tokenNo)).toEqual(['CT1']);
      expect(await cashierTokens.listByUser(5, { offset: 0, limit: 2 })).toEqual({ items: [], total: 0 });
    });

    it('listByReference: the user\'s tokens whose request carries exactly the reference, newest first, paged with the total', async () => {
      const { cashierTokens } = subject();
      const token = (i: number, payment: PaymentRequest | undefined, userId = 1) => aCashierToken({
        tokenNo: `CT${i}`, tokenHash: String(i).padStart(64, '0'), address: addressOf(i), createdAt: T0 + i, userId,
        ...(payment === undefined ? {} : { payment }),
      });
      await cashierTokens.insert(token(1, aPayment({ reference: 'order-1042' })), T0);
      await cashierTokens.insert(token(2, aPayment({ reference: 'order-1043' })), T0);
      await cashierTokens.insert(token(3, undefined), T0);
      await cashierTokens.insert(token(4, aPayment({ reference: 'order-1042' })), T0);
      await cashierTokens.insert(token(5, aPayment({ reference: 'ORDER-1042' })), T0);
      await cashierTokens.insert(token(6, aPayment({ reference: null })), T0);
      await cashierTokens.insert(token(7, aPayment({ reference: 'order-1042' }), 2), T0);
      const page = await cashierTokens.listByReference(1, 'order-1042', { offset: 0, limit: 1 });
      expect(page.items.map((t) => t.tokenNo)).toEqual(['CT4']);
      expect(page.total).toBe(2);
      expect(page.items[0]).toEqual(token(4, aPayment({ reference: 'order-1042' })));
      expect((await cashierTokens.listByReference(1, 'order-1042', { offset: 1, limit: 5 })).items.map((t) => t.tokenNo)).toEqual(['CT1']);
      expect(await cashierTokens.listByReference(1, 'order-1', { offset: 0, limit: 5 })).toEqual({ items: [], total: 0 });
      expect(await cashierTokens.listByReference(3, 'order-1042', { offset: 0, limit: 5 })).toEqual({ items: [], total: 0 });
    });

    it('findActiveByAddress: the token insert refuses for, until it is disabled or expires', async () => {
      const { cashierTokens } = subject();
      expect(await cashierTokens.findActiveByAddress(addressOf(1), T0)).toBeNull();
      await cashierTokens.insert(aCashierToken(), T0);
      expect(await cashierTokens.findActiveByAddress(addressOf(1), T0 + 59 * MINUTE)).toEqual(aCashierToken());
      expect(await cashierTokens.findActiveByAddress(addressOf(2), T0)).toBeNull();
      expect(await cashierTokens.findActiveByAddress(addressOf(1), T0 + 60 * MINUTE)).toBeNull();
      await cashierTokens.update(aCashierToken({ status: 'disabled', disabledAt: T0 + 1, disableReason: 'done', version: 2 }));
      expect(await cashierTokens.findActiveByAddress(addressOf(1), T0 + 2)).toBeNull();
    });

    it('update is optimistic', async () => {
      const { cashierTokens } = subject();
      await cashierTokens.insert(aCashierToken(), T0);
      const disabled = aCashierToken({ status: 'disabled', disabledAt: T0 + 1, disableReason: 'paid', version: 2 });
      await cashierTokens.update(disabled);
      await expect(cashierTokens.update(aCashierToken({ status: 'disabled', version: 2 }))).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect(await cashierTokens.findByTokenNo('CT0001')).toEqual(disabled);
    });

    it('extendExpiry slides forward, never shortens, and leaves disabled or unknown tokens alone', async () => {
      const { cashierTokens } = subject();
      await cashierTokens.insert(aCashierToken(), T0);
      await cashierTokens.extendExpiry('CT0001', T0 + 90 * MINUTE);
      expect((await cashierTokens.findByTokenNo('CT0001'))!.expiresAt).toBe(T0 + 90 * MINUTE);
      await cashierTokens.extendExpiry('CT0001', T0 + 70 * MINUTE);
      expect((await cashierTokens.findByTokenNo('CT0001'))!.expiresAt).toBe(T0 + 90 * MINUTE);
      const stored = (await cashierTokens.findByTokenNo('CT0001'))!;
      await cashierTokens.update({ ...stored, status: 'disabled', disabledAt: T0, disableReason: null, version: stored.version + 1 });
      await cashierTokens.extendExpiry('CT0001', T0 + 500 * MINUTE);
      expect((await cashierTokens.findByTokenNo('CT0001'))!.expiresAt).toBe(T0 + 90 * MINUTE);
      await expect(cashierTokens.extendExpiry('CT9999', T0)).resolves.toBeUndefined();
    });

    it('concurrent extensions leave the latest expiry and a later disable still succeeds', async () => {
      const { cashierTokens } = subject();
      await cashierTokens.insert(aCashierToken(), T0);
      const before = (await cashierTokens.findByTokenNo('CT0001'))!;
      await Promise.all([80, 120, 65, 110].map((m) => cashierTokens.extendExpiry('CT0001', T0 + m * MINUTE)));
      const after = (await cashierTokens.findByTokenNo('CT0001'))!;
      expect(after.expiresAt).toBe(T0 + 120 * MINUTE);
      await cashierTokens.update({ ...after, status: 'disabled', version: after.version + 1 });
      expect((await cashierTokens.findByTokenNo('CT0001'))!.status).toBe('disabled');
      expect(before.version).toBeGreaterThan(0);
    });

    it('stores a payment request whole; a token without one reads back without', async () => {
      const { cashierTokens } = subject();
      const withPayment = aCashierToken({ payment: aPayment({ description: 'Two mugs', amount: 2n ** 70n }) });
      await cashierTokens.insert(withPayment, T0);
      await cashierTokens.insert(aCashierToken({ tokenNo: 'CT2', tokenHash: 'd5'.repeat(32), address: addressOf(2) }), T0);
      expect(await cashierTokens.findByTokenNo('CT0001')).toEqual(withPayment);
      const plain = await cashierTokens.findByTokenNo('CT2');
      expect(plain).not.toHaveProperty('payment');
    });

    it('lists watched payment requests only, earliest deadline first (ties by token number), up to the limit', async () => {
      const { cashierTokens } = subject();
      const rows = [
        ['CT-B', 20, true], ['CT-A', 20, true], ['CT-C', 5, true], ['CT-D', 1, false],
      ] as const;
      for (const [i, [no, minutes, watched]] of rows.entries()) {
        await cashierTokens.insert(aCashierToken({
          tokenNo: no, tokenHash: String(i).padStart(64, '0'), address: addressOf(i + 1),
          payment: aPayment({ deadline: T0 + minutes * MINUTE, watched }),
        }), T0);
      }
      await cashierTokens.insert(aCashierToken({ tokenNo: 'CT-E', tokenHash: 'e'.repeat(64), address: addressOf(9) }), T0);
      expect((await cashierTokens.listWatchedPayments(10)).map((t) => t.tokenNo)).toEqual(['CT-C', 'CT-A', 'CT-B']);
      expect((await cashierTokens.listWatchedPayments(2)).map((t) => t.tokenNo)).toEqual(['CT-C', 'CT-A']);
      expect(await cashierTokens.listWatchedPayments(0)).toEqual([]);
    });

    it('a payment change through the unit of work writes only the request and the version: a slid expiry stays', async () => {
      const { cashierTokens, uow } = subject();
      await cashierTokens.insert(aCashierToken({ payment: aPayment() }), T0);
      await cashierTokens.extendExpiry('CT0001', T0 + 95 * MINUTE);
      const paid = aPayment({ status: 'paid', received: 25_000_000n, collect: 'due' });
      await uow.commit({ payments: [{ tokenNo: 'CT0001', version: 2, payment: paid }] });
      const stored = (await cashierTokens.findByTokenNo('CT0001'))!;
      expect(stored).toEqual(aCashierToken({ payment: paid, version: 2, expiresAt: T0 + 95 * MINUTE }));
      // A later disable (optimistic on the new version) keeps the request.
      await cashierTokens.update({ ...stored, status: 'disabled', disabledAt: T0 + 1, version: 3 });
      expect((await cashierTokens.findByTokenNo('CT0001'))!.payment).toEqual(paid);
      expect((await cashierTokens.listWatchedPayments(5)).map((t) => t.tokenNo)).toEqual(['CT0001']);
    });

    it('a stale payment change is a ConcurrencyConflict and the change set writes nothing', async () => {
      const { cashierTokens, uow } = subject();
      await cashierTokens.insert(aCashierToken({ payment: aPayment() }), T0);
      const stale = uow.commit({
        payments: [{ tokenNo: 'CT0001', version: 3, payment: aPayment({ status: 'expired', watched: false }) }],
        events: [anEvent()],
      });
      await expect(stale).rejects.toBeInstanceOf(ConcurrencyConflict);
      await expect(uow.commit({ payments: [{ tokenNo: 'CT9999', version: 2, payment: aPayment() }] })).rejects.toBeInstanceOf(ConcurrencyConflict);
      expect((await cashierTokens.findByTokenNo('CT0001'))!.payment).toEqual(aPayment());
      // The event of the refused change set was not written: the same event lands with a valid change.
      await uow.commit({ payments: [{ tokenNo: 'CT0001', version: 2, payment: aPayment({ watched: false }) }], events: [anEvent()] });
      expect(await cashierTokens.listWatchedPayments(5)).toEqual([]);
    });

    options.extraTestsFn?.(makeSubject);
  });
}
