/**
 * The books after a crash test (issue #36): read from PostgreSQL once every workflow is terminal. Bookings come after
 * the fact (the worker right after a workflow ends, a catch-up pass every minute for what a kill left), so this waits
 * for them, then checks that every DONE sweep, SUCCESS withdrawal and SUCCESS stake is booked exactly once (none
 * missing, none doubled, nothing else booked), that each transaction sums to zero per asset with one entry per account, that each
 * account's balance is the sum of its entries and its last entry's balance after, and that the amounts are the chain's.
 */
import { setTimeout as sleep } from 'node:timers/promises';

type Query = <R extends Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;

export interface BookedWorkflows {
  /** DONE collections: task number, the asset, the main address and what the task swept. */
  readonly collections: readonly { readonly taskNo: string; readonly symbol: string; readonly main: string; readonly swept: bigint }[];
  /** SUCCESS withdrawals: command number and the TRX amount sent outside. */
  readonly withdrawals: readonly { readonly commandNo: string; readonly amount: bigint }[];
  /** SUCCESS stakes (issue #36: staking booked): command number, the address and the TRX it moved into stake. */
  readonly stakes?: readonly { readonly commandNo: string; readonly address: string; readonly amount: bigint }[];
}

/** Waits up to `waitMs` for the bookings, then answers what is wrong with the books (empty when nothing is). */
export async function booksAfterCrash(query: Query, expected: BookedWorkflows, waitMs = 150_000): Promise<string[]> {
  const wanted = new Set([
    ...expected.collections.map((c) => `collection|${c.taskNo}`), ...expected.withdrawals.map((w) => `withdrawal|${w.commandNo}`),
    ...(expected.stakes ?? []).map((st) => `staking|${st.commandNo}`),
  ]);
  let booked: { cause: string; n: number }[] = [];
  for (const deadline = Date.now() + waitMs; ;) {
    booked = await query<{ cause: string; n: number }>(
      `SELECT cause_type || '|' || cause_id AS cause, count(*)::int AS n FROM ledger_transactions GROUP BY cause_type, cause_id`);
    if ([...wanted].every((cause) => booked.some((b) => b.cause === cause)) || Date.now() > deadline) break;
    await sleep(1_000);
  }
  const problems: string[] = [];
  const causes = new Map(booked.map((b) => [b.cause, b.n]));
  for (const cause of wanted) if (!causes.has(cause)) problems.push(`missing: ${cause}`);
  for (const [cause, n] of causes) {
    if (!wanted.has(cause)) problems.push(`booked without a finished workflow: ${cause}`);
    if (n !== 1) problems.push(`booked ${n} times: ${cause}`);
  }
  const unbalanced = await query<{ transaction_id: string; asset: string; sum: string }>(
    `SELECT transaction_id, network_code || ':' || asset_symbol AS asset, sum(amount)::text AS sum FROM ledger_entries
     GROUP BY transaction_id, network_code, asset_symbol HAVING sum(amount) <> 0`);
  for (const u of unbalanced) problems.push(`transaction ${u.transaction_id} sums to ${u.sum} in ${u.asset}`);
  const doubled = await query<{ transaction_id: string; account_key: string }>(
    'SELECT transaction_id, account_key FROM ledger_entries GROUP BY transaction_id, account_key HAVING count(*) > 1');
  for (const d of doubled) problems.push(`transaction ${d.transaction_id} has two entries on ${d.account_key}`);
  const drift = await query<{ user_id: string; account_key: string; balance: string; total: string; last: string }>(
    `SELECT a.user_id::text, a.account_key, a.balance::text, e.total::text, l.balance_after::text AS last FROM ledger_accounts a
     CROSS JOIN LATERAL (SELECT coalesce(sum(amount), 0) AS total FROM ledger_entries WHERE user_id = a.user_id AND account_key = a.account_key) e
     CROSS JOIN LATERAL (SELECT balance_after FROM ledger_entries WHERE user_id = a.user_id AND account_key = a.account_key ORDER BY seq DESC LIMIT 1) l
     WHERE a.balance <> e.total OR a.balance <> l.balance_after`);
  for (const d of drift) problems.push(`account ${d.user_id} ${d.account_key}: balance ${d.balance}, entries sum ${d.total}, last balance_after ${d.last}`);
  const lines = await query<{ cause: string; kind: string; asset_symbol: string; address: string | null; amount: string }>(
    `SELECT t.cause_type || '|' || t.cause_id AS cause, e.kind, e.asset_symbol, e.address, e.amount::text FROM ledger_entries e
     JOIN ledger_transactions t ON t.transaction_id = e.transaction_id`);
  const amountOf = (cause: string, pick: (l: (typeof lines)[number]) => boolean): bigint =>
    lines.filter((l) => l.cause === cause && pick(l)).reduce((sum, l) => sum + BigInt(l.amount), 0n);
  for (const c of expected.collections) {
    if (c.symbol !== 'USDT') continue;
    const toMain = amountOf(`collection|${c.taskNo}`, (l) => l.kind === 'custodial' && l.asset_symbol === 'USDT' && l.address === c.main);
    if (toMain !== c.swept) problems.push(`collection ${c.taskNo}: ${toMain} USDT booked to the main address, ${c.swept} swept`);
  }
  for (const w of expected.withdrawals) {
    const out = amountOf(`withdrawal|${w.commandNo}`, (l) => l.kind === 'external_out' && l.asset_symbol === 'TRX');
    if (out !== w.amount) problems.push(`withdrawal ${w.commandNo}: ${out} booked out, ${w.amount} sent`);
  }
  for (const st of expected.stakes ?? []) {
    const staked = amountOf(`staking|${st.commandNo}`, (l) => l.kind === 'staked' && l.asset_symbol === 'TRX' && l.address === st.address);
    if (staked !== st.amount) problems.push(`stake ${st.commandNo}: ${staked} booked into stake, ${st.amount} staked`);
  }
  return problems;
}
