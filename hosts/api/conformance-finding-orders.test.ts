import { randomUUID } from 'node:crypto';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../composition/tokens.js';
import { startHarness, type ApiHarness, type HttpResult } from './test-harness.js';
import {
  cacheCollectable, createWallet, expectAnswersDocumented, expectDocumented, fails, ok, userWithWallets, WALLET_TIME,
} from './api-test-fixtures.js';

type User = Awaited<ReturnType<typeof userWithWallets>>;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
const SPEC_TOKEN_RECORD = ['address', 'created_at', 'disable_reason', 'disabled_at', 'expires_at', 'network_code', 'status', 'token_no',
  'ttl_minutes', 'wallet_address_id'];

/** Issue #34 item 5 over real HTTP: a merchant finds an order by its reference, its token, its collections and its refunds. */
describe('finding an order (issue #34 item 5)', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => {
    expectAnswersDocumented(h);
    await h.close();
  });

  const request = (user: User, address: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => h.call('POST', '/api/cashier/tokens', {
    token: user.apiToken, headers, body: { address, amount: '25000000', asset_symbol: 'USDT', ...extra },
  });
  const tokens = (user: User, query: string) => h.call('GET', `/api/cashier/tokens${query}`, { token: user.apiToken });

  it('GET /cashier/tokens?reference= keeps the tokens of that order, newest first, paged; absent, every token', async () => {
    const user = await userWithWallets(h, 'pro');
    const subs = [user.sub, await createWallet(h, user, 2), await createWallet(h, user, 2), await createWallet(h, user, 2)];
    const first = ok(await request(user, subs[0]!, { reference: 'order-1042' }), 201);
    ok(await request(user, subs[1]!, { reference: 'order-1043' }), 201);
    ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: subs[2] } }), 201);
    h.clock.advance(1_000);
    const second = ok(await request(user, subs[3]!, { reference: 'order-1042' }), 201);

    const found = ok(await tokens(user, '?reference=order-1042'));
    expectDocumented(h, 'GET', '/api/cashier/tokens', found);
    expect(found.data.map((t: { token_no: string }) => t.token_no)).toEqual([second.token_no, first.token_no]);
    expect(found.data.every((t: { payment: { reference: string } }) => t.payment.reference === 'order-1042')).toBe(true);
    expect(found.meta).toEqual({ current_page: 1, per_page: 15, total: 2, last_page: 1 });
    const paged = ok(await tokens(user, '?reference=order-1042&per_page=1&page=2'));
    expect(paged.data.map((t: { token_no: string }) => t.token_no)).toEqual([first.token_no]);
    expect(paged.meta).toEqual({ current_page: 2, per_page: 1, total: 2, last_page: 2 });
    // Exact: another case, a prefix or an unknown order finds nothing.
    for (const reference of ['ORDER-1042', 'order-104', 'order-9999']) {
      expect(ok(await tokens(user, `?reference=${reference}`))).toEqual({ data: [], meta: { current_page: 1, per_page: 15, total: 0, last_page: 1 } });
    }
    expect(ok(await tokens(user, '')).meta.total).toBe(4);
    // Another account's order of the same reference is not listed.
    const other = await userWithWallets(h);
    ok(await request(other, other.sub, { reference: 'order-1042' }), 201);
    expect(ok(await tokens(user, '?reference=order-1042')).meta.total).toBe(2);
    expect(ok(await tokens(other, '?reference=order-1042')).meta.total).toBe(1);
  });

  it('a bad reference or page is a 422 VALIDATION-ERROR naming the parameter', async () => {
    const user = await userWithWallets(h);
    for (const [query, field] of [['?reference=', 'reference'], [`?reference=${'x'.repeat(121)}`, 'reference'], ['?reference=a&per_page=0', 'per_page']]) {
      const answer = await tokens(user, query!);
      fails(answer, 422, 'VALIDATION-ERROR');
      expect(answer.json.message).toContain(field);
    }
  });

  it('GET /cashier/tokens/{tokenNo}: one token with its payment, judged now; a plain token exactly the spec\'s record', async () => {
    const user = await userWithWallets(h, 'pro');
    const created = ok(await request(user, user.sub, { reference: 'order-7', description: 'Two mugs' }), 201);
    const one = ok(await h.call('GET', `/api/cashier/tokens/${created.token_no}`, { token: user.apiToken }));
    expectDocumented(h, 'GET', '/api/cashier/tokens/:tokenNo', one);
    const { token: _secret, payer_url: _url, payer_qr_svg: _qr, ...record } = created;
    expect(one).toEqual(record);
    expect(one.payment).toMatchObject({ status: 'awaiting', reference: 'order-7', received: '0', remaining: '25000000' });
    expect(JSON.stringify(one)).not.toContain(created.token);

    const plainSub = await createWallet(h, user, 2);
    const plain = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: plainSub } }), 201);
    const plainOne = ok(await h.call('GET', `/api/cashier/tokens/${plain.token_no}`, { token: user.apiToken }));
    expect(Object.keys(plainOne).sort()).toEqual(SPEC_TOKEN_RECORD);
    // Disabled tokens are still found, as disabled.
    ok(await h.call('DELETE', `/api/cashier/tokens/${plain.token_no}`, { token: user.apiToken, body: { reason: 'done' } }));
    expect(ok(await h.call('GET', `/api/cashier/tokens/${plain.token_no}`, { token: user.apiToken }))).toMatchObject({ status: 'disabled', disable_reason: 'done' });

    fails(await h.call('GET', '/api/cashier/tokens/CT00000000000000000000000000', { token: user.apiToken }), 404, 'CASHIER-TOKEN-NOT-FOUND');
    const other = await userWithWallets(h);
    const foreign = await h.call('GET', `/api/cashier/tokens/${created.token_no}`, { token: other.apiToken });
    fails(foreign, 404, 'CASHIER-TOKEN-NOT-FOUND');
    expect(foreign.json).toEqual({ code: 'CASHIER-TOKEN-NOT-FOUND', message: expect.any(String), data: {} });
  });

  it('a payment request\'s create answer carries the payer URL, which serves the payer page; a plain token\'s answer stays the spec\'s', async () => {
    const user = await userWithWallets(h, 'pro');
    const created = ok(await request(user, user.sub), 201);
    expect(created.payer_url).toBe(`${h.url}/cashier?ct=${created.token}`);
    // Issue #38: the link's QR code beside it (the console shows it), encoding the link itself.
    expect(created.payer_qr_svg).toBe(await QRCode.toString(created.payer_url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } }));
    const page = await h.call('GET', new URL(created.payer_url).pathname + new URL(created.payer_url).search);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    // Behind a TLS-terminating proxy, the origin the payer reaches.
    const proxied = ok(await request(user, await createWallet(h, user, 2), {}, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'pay.example.com' }), 201);
    expect(proxied.payer_url).toBe(`https://pay.example.com/cashier?ct=${proxied.token}`);
    const plain = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: await createWallet(h, user, 2) } }), 201);
    expect(plain).not.toHaveProperty('payer_url');
    expect(plain).not.toHaveProperty('payer_qr_svg');
  });

  it('a payment request\'s token lives at least until its deadline, whatever its ttl_minutes; a plain token ttl_minutes', async () => {
    const user = await userWithWallets(h, 'pro');
    const created = ok(await request(user, user.sub, { pay_within_minutes: 1440 }), 201);
    expect(created.ttl_minutes).toBe(60);
    expect(Date.parse(created.expires_at)).toBe(Date.parse(created.payment.deadline));
    h.clock.advance(2 * HOUR);
    expect(ok(await h.call('GET', '/api/cashier/session', { token: created.token })).payment.status).toBe('awaiting');
    h.clock.advance(22 * HOUR);
    fails(await h.call('GET', '/api/cashier/session', { token: created.token }), 401, 'CASHIER-TOKEN-INVALID');
    // A short deadline does not shorten ttl_minutes.
    const short = ok(await request(user, await createWallet(h, user, 2), { ttl_minutes: 120, pay_within_minutes: 5 }), 201);
    expect(Date.parse(short.expires_at) - Date.parse(short.created_at)).toBe(120 * MINUTE);
    const plain = ok(await h.call('POST', '/api/cashier/tokens', { token: user.apiToken, body: { address: await createWallet(h, user, 2) } }), 201);
    expect(Date.parse(plain.expires_at) - Date.parse(plain.created_at)).toBe(60 * MINUTE);
  });

  it('409 CASHIER-TOKEN-ACTIVE-EXISTS names the active token and how to end it; the body stays the spec\'s', async () => {
    const user = await userWithWallets(h);
    const active = ok(await request(user, user.sub, { reference: 'order-1' }), 201);
    const refused = await request(user, user.sub, { reference: 'order-2' });
    fails(refused, 409, 'CASHIER-TOKEN-ACTIVE-EXISTS');
    expect(refused.json.data).toEqual({});
    expect(Object.keys(refused.json).sort()).toEqual(['code', 'data', 'message']);
    expect(refused.json.message).toContain(active.token_no);
    expect(refused.json.message).toContain(`DELETE /cashier/tokens/${active.token_no}`);
    expect(refused.json.message).toContain(active.expires_at);
    // Ended as the message says, the address takes a new token.
    ok(await h.call('DELETE', `/api/cashier/tokens/${active.token_no}`, { token: user.apiToken }));
    ok(await request(user, user.sub, { reference: 'order-2' }), 201);
  });

  describe('GET /collections', () => {
    let user: User;
    let tasks: { task_no: string; address: string; asset_symbol: string }[];
    const list = (query: string, as: User = user) => h.call('GET', `/api/collections${query}`, { token: as.apiToken });
    const numbers = (answer: HttpResult) => ok(answer).items.map((t: { task_no: string }) => t.task_no);

    beforeAll(async () => {
      user = await userWithWallets(h, 'pro');
      const subs = [user.sub, await createWallet(h, user, 2), await createWallet(h, user, 2)];
      await cacheCollectable(h, ...subs);
      tasks = [];
      for (const [address, asset] of [[subs[0], 'USDT'], [subs[1], 'TRX'], [subs[2], 'USDT']] as const) {
        h.clock.advance(1_000);
        const task = ok(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address, asset_symbol: asset } }), 201);
        tasks.push({ task_no: task.task_no, address: address!, asset_symbol: asset });
      }
    });

    it('lists the caller\'s tasks newest first with the spec\'s task fields and what each sweeps from where', async () => {
      const answer = ok(await list(''));
      expectDocumented(h, 'GET', '/api/collections', answer);
      expect(answer.items.map((t: { task_no: string }) => t.task_no)).toEqual(tasks.map((t) => t.task_no).reverse());
      expect(answer.pagination).toEqual({ page: 1, per_page: 20, total: 3, pages: 1 });
      const newest = answer.items[0];
      const single = ok(await h.call('GET', `/api/collections/${newest.task_no}`, { token: user.apiToken }));
      expect(newest).toEqual({ ...single, address: tasks[2]!.address, asset_symbol: 'USDT', swept_amount: null, sweep_tx_hash: null });
      expect(newest.started_at).toMatch(WALLET_TIME);
      // Another account sees none of them, even by naming the sub-address.
      const other = await userWithWallets(h);
      expect(ok(await list(`?address=${tasks[0]!.address}`, other))).toEqual({ items: [], pagination: { page: 1, per_page: 20, total: 0, pages: 0 } });
      expect(ok(await list('', other)).pagination.total).toBe(0);
    });

    it('filters by status and sub-address, and pages like GET /commands', async () => {
      expect(numbers(await list(`?address=${tasks[1]!.address}`))).toEqual([tasks[1]!.task_no]);
      expect(numbers(await list('?status=1'))).toEqual(tasks.map((t) => t.task_no).reverse());
      expect(numbers(await list('?status=11'))).toEqual([]);
      expect(numbers(await list(`?status=1&address=${tasks[0]!.address}`))).toEqual([tasks[0]!.task_no]);
      const paged = ok(await list('?per_page=2&page=2'));
      expect(paged).toMatchObject({ items: [{ task_no: tasks[0]!.task_no }], pagination: { page: 2, per_page: 2, total: 3, pages: 2 } });
      // A task that moved on shows its new status under that filter.
      const { tasks: store } = h.container.get(TOKENS.Stores);
      const stored = (await store.get(tasks[1]!.task_no))!;
      await store.update({ ...stored, status: 11, sweptAmount: 999_000n, sweepTxHash: 'ab'.repeat(32), finishedAt: h.clock.now(), version: stored.version + 1 });
      const done = ok(await list('?status=11'));
      expect(done.items).toEqual([expect.objectContaining({ task_no: tasks[1]!.task_no, status: 11, swept_amount: '999000', sweep_tx_hash: 'ab'.repeat(32) })]);
      expectDocumented(h, 'GET', '/api/collections', done);
    });

    it('a bad query answers exactly as GET /commands does: 422 VALIDATION-ERROR naming the parameter', async () => {
      for (const query of ['?page=0', '?page=abc', '?per_page=0', '?per_page=101', '?per_page=2.5', '?status=abc', '?status=1.5']) {
        const collections = await list(query);
        fails(collections, 422, 'VALIDATION-ERROR');
        const commands = await h.call('GET', `/api/commands${query}`, { token: user.apiToken });
        expect({ query, status: collections.status, body: collections.json }).toEqual({ query, status: commands.status, body: commands.json });
      }
      // Unknown statuses: the task's own enum (3 is a command status, not a task's).
      for (const status of ['3', '99', '0', '-1']) {
        const unknown = await list(`?status=${status}`);
        fails(unknown, 422, 'VALIDATION-ERROR');
        expect(unknown.json.message).toBe('status: must be one of 1, 2, 6, 8, 11, 12, 15, 16, 17');
      }
      fails(await list('?address='), 422, 'VALIDATION-ERROR');
    });
  });

  it('a withdrawal\'s GET /commands/{commandNo} shows asset_symbol, amount, to_address and, once broadcast, txid; other commands only the spec\'s', async () => {
    const user = await userWithWallets(h);
    const accepted = ok(await h.call('POST', '/api/transfers', {
      token: user.session, headers: key(), body: { from_address: user.sub, to_address: user.main, asset_symbol: 'TRX', amount: '1500000' },
    }), 201);
    const pending = ok(await h.call('GET', `/api/commands/${accepted.command_no}`, { token: user.apiToken }));
    expectDocumented(h, 'GET', '/api/commands/:commandNo', pending);
    expect(pending).toMatchObject({ command_no: accepted.command_no, type: 2, status: 1, asset_symbol: 'TRX', amount: '1500000', to_address: user.main, txid: null });
    // Signed and written ahead of its broadcast: from then on its txid is shown.
    const { commands } = h.container.get(TOKENS.Stores);
    const stored = (await commands.get(accepted.command_no))!;
    const txid = 'cd'.repeat(32);
    await commands.update({
      ...stored, status: 2, startedAt: h.clock.now(), version: stored.version + 1,
      transaction: { txid, signedJson: '{}', expiresAt: h.clock.now() + MINUTE, broadcastAt: null },
    });
    expect(ok(await h.call('GET', `/api/commands/${accepted.command_no}`, { token: user.apiToken })).txid).toBeNull();
    await commands.update({
      ...stored, status: 2, startedAt: h.clock.now(), version: stored.version + 2,
      transaction: { txid, signedJson: '{}', expiresAt: h.clock.now() + MINUTE, broadcastAt: h.clock.now() },
    });
    expect(ok(await h.call('GET', `/api/commands/${accepted.command_no}`, { token: user.apiToken })).txid).toBe(txid);
    // A SUCCESS recorded before the broadcast time was stamped still names its transaction.
    await commands.update({
      ...stored, status: 3, startedAt: h.clock.now(), finishedAt: h.clock.now(), version: stored.version + 3,
      transaction: { txid, signedJson: '{}', expiresAt: h.clock.now() + MINUTE, broadcastAt: null },
    });
    expect(ok(await h.call('GET', `/api/commands/${accepted.command_no}`, { token: user.apiToken }))).toMatchObject({ status: 3, txid });
    // The list keeps the spec's fields; a collection's command has no withdrawal fields.
    const listed = ok(await h.call('GET', '/api/commands', { token: user.apiToken })).items[0];
    expect(listed).not.toHaveProperty('to_address');
    const sub = await createWallet(h, user, 2);
    await cacheCollectable(h, sub);
    const task = ok(await h.call('POST', '/api/collections', { token: user.apiToken, headers: key(), body: { address: sub, asset_symbol: 'USDT' } }), 201);
    const collection = ok(await h.call('GET', `/api/commands/${task.command_no}`, { token: user.apiToken }));
    expect(Object.keys(collection).sort()).toEqual(['command_no', 'error_code', 'finished_at', 'last_error', 'started_at', 'status', 'type']);
  });

  it('a velocity refusal says what is left in the window and when the withdrawal fits (Retry-After); an amount above the limit never fits', async () => {
    const user = await userWithWallets(h, 'pro');
    ok(await h.call('PUT', '/api/policies/withdrawal', {
      token: user.session, body: { limits: { TRX: { max_count_1h: 2, max_amount_24h: '5000000', approval_threshold: null } } },
    }));
    const froms = await Promise.all([1, 2, 3, 4, 5].map(() => createWallet(h, user, 2)));
    const transfer = (from: string, amount: string) => h.call('POST', '/api/transfers', {
      token: user.session, headers: key(), body: { from_address: from, to_address: user.main, asset_symbol: 'TRX', amount },
    });
    const start = h.clock.now();
    ok(await transfer(froms[0]!, '1000000'), 201);
    h.clock.advance(10 * MINUTE);
    ok(await transfer(froms[1]!, '2000000'), 201);
    h.clock.advance(5 * MINUTE);
    const count = await transfer(froms[2]!, '1000000');
    fails(count, 422, 'POLICY-VELOCITY-COUNT-EXCEEDED');
    // The first of the hour leaves its window an hour after it was made: 45 minutes from now.
    const freesAt = new Date(start + HOUR).toISOString().replace('.000Z', '+00:00');
    expect(count.json.message).toBe(`max_count_1h: 0 of 2 withdrawals of TRX left in the last hour; it fits from ${freesAt} (in 45 min) if nothing else is withdrawn meanwhile`);
    expect(count.headers.get('retry-after')).toBe(String(45 * 60));

    h.clock.advance(HOUR);
    const amount = await transfer(froms[2]!, '2500000');
    fails(amount, 422, 'POLICY-VELOCITY-AMOUNT-EXCEEDED');
    // 3 TRX counted of 5: 2 left; 2.5 fits once the first (1 TRX) leaves the day, 24 h after it was made.
    expect(amount.json.message).toContain('max_amount_24h: 2000000 of 5000000 (smallest unit) of TRX left in the last 24 h, 2500000 asked');
    expect(amount.json.message).toContain(`it fits from ${new Date(start + 24 * HOUR).toISOString().replace('.000Z', '+00:00')}`);
    expect(Number(amount.headers.get('retry-after'))).toBe((24 * HOUR - 75 * MINUTE) / 1000);

    const never = await transfer(froms[3]!, '5000001');
    fails(never, 422, 'POLICY-VELOCITY-AMOUNT-EXCEEDED');
    expect(never.json.message).toContain('this withdrawal never fits: 5000001 is above max_amount_24h by itself');
    expect(never.headers.get('retry-after')).toBeNull();
    ok(await transfer(froms[3]!, '2000000'), 201);
  });
});
