import { runs } from './support/depth.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AddressType } from '../core/domain/model/wallet.js';
import type { WalletInsertOutcome, WalletRepository } from '../core/ports/wallet-repository.port.js';
import { type Closable, type ContractOptions, type MakeSubject, useFreshSubject, withSubject } from './support/contract-options.js';
import { addressOf, aWallet } from './support/fixtures.js';

/** What the wallet contract needs: an empty repository. */
export interface WalletRepositorySubject extends Closable {
  readonly wallets: WalletRepository;
}

const UNLIMITED = { maxSubAddresses: -1 };
const MAIN = 1 as const;
const SUB = 2 as const;

interface ModelWallet { readonly id: number; readonly userId: number; readonly type: AddressType; readonly address: string }
interface WalletModel { wallets: ModelWallet[]; nextId: number }

/** Inserts a wallet (fresh or reusing an existing address) and checks the outcome against the model's rules. */
class InsertCommand implements fc.AsyncCommand<WalletModel, WalletRepository> {
  constructor(readonly userId: number, readonly type: AddressType, readonly max: number, readonly reuse: number | null) {}
  check = () => true;
  async run(model: WalletModel, wallets: WalletRepository): Promise<void> {
    const id = model.nextId++;
    const reused = this.reuse === null || model.wallets.length === 0 ? null : model.wallets[this.reuse % model.wallets.length]!;
    const address = reused?.address ?? addressOf(id);
    const mine = model.wallets.filter((w) => w.userId === this.userId);
    let expected: WalletInsertOutcome = 'created';
    if (reused !== null) expected = 'address-exists';
    else if (this.type === MAIN && mine.some((w) => w.type === MAIN)) expected = 'main-exists';
    else if (this.type === SUB && this.max !== -1 && mine.filter((w) => w.type === SUB).length >= this.max) expected = 'quota-exceeded';
    const outcome = await wallets.insert(aWallet({ id, userId: this.userId, addressType: this.type, address }), { maxSubAddresses: this.max });
    expect(outcome).toBe(expected);
    if (outcome === 'created') model.wallets.push({ id, userId: this.userId, type: this.type, address });
  }
  toString = () => `insert(user ${this.userId}, type ${this.type}, max ${this.max}, reuse ${this.reuse})`;
}

/** Lists a page and compares ids, order and total with the model. */
class ListCommand implements fc.AsyncCommand<WalletModel, WalletRepository> {
  constructor(readonly userId: number, readonly type: AddressType | undefined, readonly offset: number, readonly limit: number) {}
  check = () => true;
  async run(model: WalletModel, wallets: WalletRepository): Promise<void> {
    const all = model.wallets.filter((w) => w.userId === this.userId && (this.type === undefined || w.type === this.type));
    const page = await wallets.listByUser(this.userId, this.type === undefined ? {} : { addressType: this.type }, { offset: this.offset, limit: this.limit });
    expect(page.total).toBe(all.length);
    expect(page.items.map((w) => w.id)).toEqual(all.map((w) => w.id).sort((a, b) => a - b).slice(this.offset, this.offset + this.limit));
    expect(await wallets.countSubs(this.userId, 'TRON')).toBe(model.wallets.filter((w) => w.userId === this.userId && w.type === SUB).length);
    const main = model.wallets.find((w) => w.userId === this.userId && w.type === MAIN);
    expect((await wallets.findMain(this.userId, 'TRON'))?.id ?? null).toBe(main?.id ?? null);
  }
  toString = () => `list(user ${this.userId}, type ${this.type}, ${this.offset}+${this.limit})`;
}

/** The WalletRepository contract (core/ports/wallet-repository.port.ts); a fresh, empty subject per test. */
export function describeWalletRepositoryContract(
  name: string,
  makeSubject: MakeSubject<WalletRepositorySubject>,
  options: ContractOptions<WalletRepositorySubject> = {},
): void {
  const concurrency = options.concurrency ?? 50;
  const numRuns = options.numRuns ?? runs(50);
  describe(`WalletRepository contract: ${name}`, () => {
    const subject = useFreshSubject(makeSubject);

    it('inserts and finds by address, by id and as the main address', async () => {
      const { wallets } = subject();
      const main = aWallet({ id: 1, addressType: MAIN, label: 'treasury' });
      expect(await wallets.insert(main, UNLIMITED)).toBe('created');
      expect(await wallets.findByAddress(main.address)).toEqual(main);
      expect(await wallets.findById(1)).toEqual(main);
      expect(await wallets.findMain(1, 'TRON')).toEqual(main);
      expect(await wallets.findMain(2, 'TRON')).toBeNull();
      expect(await wallets.findByAddress(addressOf(77))).toBeNull();
      expect(await wallets.findById(77)).toBeNull();
    });

    it('refuses a second main address of the user, not of another user', async () => {
      const { wallets } = subject();
      await wallets.insert(aWallet({ id: 1, addressType: MAIN }), UNLIMITED);
      expect(await wallets.insert(aWallet({ id: 2, addressType: MAIN }), UNLIMITED)).toBe('main-exists');
      expect(await wallets.findById(2)).toBeNull();
      expect(await wallets.insert(aWallet({ id: 3, userId: 2, addressType: MAIN }), UNLIMITED)).toBe('created');
    });

    it('refuses a sub-address beyond the quota; -1 is unlimited; other users do not count', async () => {
      const { wallets } = subject();
      expect(await wallets.insert(aWallet({ id: 1 }), { maxSubAddresses: 2 })).toBe('created');
      expect(await wallets.insert(aWallet({ id: 2 }), { maxSubAddresses: 2 })).toBe('created');
      expect(await wallets.insert(aWallet({ id: 3 }), { maxSubAddresses: 2 })).toBe('quota-exceeded');
      expect(await wallets.insert(aWallet({ id: 4 }), { maxSubAddresses: 0 })).toBe('quota-exceeded');
      expect(await wallets.insert(aWallet({ id: 5, userId: 2 }), { maxSubAddresses: 2 })).toBe('created');
      expect(await wallets.insert(aWallet({ id: 6 }), UNLIMITED)).toBe('created');
      expect(await wallets.countSubs(1, 'TRON')).toBe(3);
      expect(await wallets.findById(3)).toBeNull();
    });

    it('refuses an address that is already stored', async () => {
      const { wallets } = subject();
      await wallets.insert(aWallet({ id: 1 }), UNLIMITED);
      expect(await wallets.insert(aWallet({ id: 2, userId: 2, address: addressOf(1) }), UNLIMITED)).toBe('address-exists');
      expect(await wallets.findById(2)).toBeNull();
    });

    it(`of ${concurrency} concurrent sub-address inserts at quota 7 exactly 7 are created`, async () => {
      const { wallets } = subject();
      const outcomes = await Promise.all(Array.from({ length: concurrency }, (_, i) =>
        wallets.insert(aWallet({ id: i + 1 }), { maxSubAddresses: 7 })));
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(7);
      expect(outcomes.filter((o) => o === 'quota-exceeded')).toHaveLength(concurrency - 7);
      expect(await wallets.countSubs(1, 'TRON')).toBe(7);
      expect((await wallets.listByUser(1, {}, { offset: 0, limit: 100 })).total).toBe(7);
    });

    it(`of ${concurrency} concurrent main inserts exactly one is created`, async () => {
      const { wallets } = subject();
      const outcomes = await Promise.all(Array.from({ length: concurrency }, (_, i) =>
        wallets.insert(aWallet({ id: i + 1, addressType: MAIN }), UNLIMITED)));
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'main-exists')).toHaveLength(concurrency - 1);
    });

    it('lists the user\'s addresses by id ascending, filtered by type, paged with the total', async () => {
      const { wallets } = subject();
      for (const id of [5, 2, 9, 4]) await wallets.insert(aWallet({ id }), UNLIMITED);
      await wallets.insert(aWallet({ id: 7, addressType: MAIN }), UNLIMITED);
      await wallets.insert(aWallet({ id: 3, userId: 2 }), UNLIMITED);
      const all = await wallets.listByUser(1, {}, { offset: 0, limit: 20 });
      expect(all.items.map((w) => w.id)).toEqual([2, 4, 5, 7, 9]);
      expect(all.total).toBe(5);
      const subs = await wallets.listByUser(1, { addressType: SUB }, { offset: 1, limit: 2 });
      expect(subs.items.map((w) => w.id)).toEqual([4, 5]);
      expect(subs.total).toBe(4);
      expect((await wallets.listByUser(1, { addressType: MAIN }, { offset: 0, limit: 20 })).items.map((w) => w.id)).toEqual([7]);
      const beyond = await wallets.listByUser(1, {}, { offset: 10, limit: 20 });
      expect(beyond).toEqual({ items: [], total: 5 });
      expect(await wallets.listByUser(3, {}, { offset: 0, limit: 20 })).toEqual({ items: [], total: 0 });
    });

    it('findManaged returns the stored ones of the given addresses and leaves unknown ones out', async () => {
      const { wallets } = subject();
      for (const id of [1, 2, 3]) await wallets.insert(aWallet({ id, userId: id }), UNLIMITED);
      const found = await wallets.findManaged([addressOf(3), addressOf(50), addressOf(1), addressOf(1)]);
      expect(found.map((w) => w.id).sort()).toEqual([1, 3]);
      expect(await wallets.findManaged([])).toEqual([]);
    });

    it('keeps the encrypted key and label exactly; returned objects are copies', async () => {
      const { wallets } = subject();
      const wallet = aWallet({ label: 'ünïcode label' });
      await wallets.insert(wallet, UNLIMITED);
      const found = (await wallets.findById(1))!;
      expect(found).toEqual(wallet);
      try { (found as { label: string }).label = 'changed'; } catch { /* a frozen copy is fine too */ }
      expect((await wallets.findById(1))!.label).toBe('ünïcode label');
    });

    it('behaves like the model under random inserts and listings', async () => {
      const commands = fc.commands([
        fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom<AddressType>(MAIN, SUB), fc.integer({ min: -1, max: 3 }),
          fc.option(fc.nat(20), { freq: 6 })).map(([u, t, m, r]) => new InsertCommand(u, t, m, r)),
        fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom<AddressType | undefined>(undefined, MAIN, SUB), fc.nat(4),
          fc.integer({ min: 1, max: 4 })).map(([u, t, o, l]) => new ListCommand(u, t, o, l)),
      ], { size: '+1' });
      await fc.assert(fc.asyncProperty(commands, (cmds) => withSubject(makeSubject, (s) =>
        fc.asyncModelRun(() => ({ model: { wallets: [], nextId: 1 }, real: s.wallets }), cmds))), { numRuns });
    });

    options.extraTestsFn?.(makeSubject);
  });
}
