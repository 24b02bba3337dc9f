import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConcurrencyConflict } from '../core/domain/errors.js';
import type { DepositStatus } from '../core/domain/model/deposit.js';
import type { PaymentRequest } from '../core/domain/model/payment-request.js';
import type { CashierTokenRepository } from '../core/ports/cashier-token-repository.port.js';
import type { CollectionTaskRepository } from '../core/ports/collection-task-repository.port.js';
import type { DepositRepository } from '../core/ports/deposit-repository.port.js';
import type { DeveloperConfigRepository } from '../core/ports/developer-config-repository.port.js';
import type { UnitOfWork } from '../core/ports/unit-of-work.port.js';
import type { WalletRepository } from '../core/ports/wallet-repository.port.js';
import { readSessionBySingleReads } from '../core/application/cashier-session-reads.js';
import { aDeposit } from './deposit-repository.contract.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';
import { aCashierToken, addressOf, aDeveloperConfig, anEvent, aTask, aWallet, MINUTE, T0 } from './support/fixtures.js';

/**
 * What the cashier-token contract needs: an empty repository, the unit of work of the same store (payments, tasks),
 * and the repositories readSession reads with it.
 */
export interface CashierTokenRepositorySubject extends Closable {
  readonly cashierTokens: CashierTokenRepository;
  readonly uow: UnitOfWork;
  readonly wallets: WalletRepository;
  readonly tasks: CollectionTaskRepository;
  readonly developerConfigs: DeveloperConfigRepository;
  readonly deposits: DepositRepository;
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

    it('readSession slides as extendExpiry and answers what the single reads find (wallet, latest task, configuration, a request\'s deposits)', async () => {
      const deposit = fc.record({
        // Mostly the request's own (user 1, address 1, USDT), so that several pay it.
        address: fc.constantFrom(1, 1, 1, 2), userId: fc.constantFrom(1, 1, 1, 2), usdt: fc.constantFrom(true, true, true, false),
        at: fc.integer({ min: -2, max: 3 }), status: fc.constantFrom<DepositStatus>('pending', 'confirmed', 'reverted'),
        amount: fc.bigInt({ min: 1n, max: 2n ** 70n }),
      });
      const world = fc.record({
        payment: fc.boolean(), disabled: fc.boolean(), slide: fc.integer({ min: -30, max: 90 }),
        config: fc.option(fc.record({ auto: fc.boolean(), name: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }) }), { nil: null }),
        tasks: fc.array(fc.record({ address: fc.integer({ min: 1, max: 2 }), at: fc.integer({ min: -3, max: 3 }) }), { maxLength: 3 }),
        deposits: fc.array(deposit, { maxLength: 8 }),
      });
      await fc.assert(fc.asyncProperty(world, (w) => withSubject(makeSubject, async (s) => {
        await s.wallets.insert(aWallet({ id: 1, label: 'till 1' }), { maxSubAddresses: -1 });
        await s.wallets.insert(aWallet({ id: 2 }), { maxSubAddresses: -1 });
        if (w.config !== null) {
          await s.developerConfigs.save(aDeveloperConfig({
            ...(w.config.auto ? { autoCollect: { USDT: { minAmount: 2n ** 65n, maxFeeSun: 10_000_000n } } } : {}),
            ...(w.config.name === undefined ? {} : { displayName: w.config.name }),
          }));
        }
        for (const [i, t] of w.tasks.entries()) {
          await s.uow.commit({ newTasks: [aTask({ taskNo: `K${i}`, address: addressOf(t.address), startedAt: T0 + t.at * MINUTE })] });
        }
        for (const [i, d] of w.deposits.entries()) {
          const txid = (i + 1).toString(16).padStart(64, '0');
          await s.deposits.insert(aDeposit({
            depositId: `D${i}`, transferId: txid, txid, userId: d.userId, address: addressOf(d.address), assetSymbol: d.usdt ? 'USDT' : 'TRX',
            amount: d.amount, status: d.status, detectedAt: T0 + d.at * MINUTE,
          }));
        }
        const token = aCashierToken({
          ...(w.payment ? { payment: aPayment() } : {}),
          ...(w.disabled ? { status: 'disabled', disabledAt: T0, disableReason: 'done' } : {}),
        });
        await s.cashierTokens.insert(token, T0);
        const expiresAt = token.expiresAt + w.slide * MINUTE;
        const read = await s.cashierTokens.readSession(token, expiresAt);
        expect((await s.cashierTokens.findByTokenNo(token.tokenNo))!.expiresAt).toBe(w.disabled ? token.expiresAt : Math.max(token.expiresAt, expiresAt));
        // The single reads after it (their slide finds nothing left to move) find the same.
        expect(read).toEqual(await readSessionBySingleReads(s, token, expiresAt));
        expect(read!.wallet).toEqual({ id: 1, address: addressOf(1), networkCode: 'TRON', label: 'till 1' });
        // The model: the request's deposits since the token, newest first (of equal times, the later inserted first).
        const paying = w.deposits.map((d, i) => ({ ...d, txid: (i + 1).toString(16).padStart(64, '0'), i }))
          .filter((d) => w.payment && d.userId === 1 && d.address === 1 && d.usdt && d.at >= 0)
          .sort((a, b) => b.at - a.at || b.i - a.i);
        expect(read!.deposits.map((d) => d.txid)).toEqual(paying.map((d) => d.txid));
        expect(read!.config?.displayName).toBe(w.config?.name);
      })), { numRuns: options.numRuns ?? runs(30) });
    });

    it('readSession is null when the token\'s wallet is missing, and still slides', async () => {
      const { cashierTokens } = subject();
      const token = aCashierToken({ walletAddressId: 9 });
      await cashierTokens.insert(token, T0);
      expect(await cashierTokens.readSession(token, token.expiresAt + MINUTE)).toBeNull();
      expect((await cashierTokens.findByTokenNo(token.tokenNo))!.expiresAt).toBe(token.expiresAt + MINUTE);
    });

    options.extraTestsFn?.(makeSubject);
  });
}
