import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from './test-harness.js';
import { ok } from './api-test-fixtures.js';

/** Issue #13: a deny-list entry with a lone surrogate could be added over HTTP but never removed. */
describe('deny-list entries added over HTTP can be removed over HTTP', () => {
  let h: ApiHarness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => { await h.close(); });

  it('a lone surrogate in the body is stored as U+FFFD and removed through its percent-encoded path', async () => {
    const added = ok(await h.call('POST', '/api/admin/risk/deny', {
      token: h.adminToken, rawBody: '{"kind":"address","value":"T\\ud800x","reason":"r"}', headers: { 'content-type': 'application/json' },
    }), 201);
    expect(added.value).toBe('T\uFFFDx');
    expect(ok(await h.call('DELETE', `/api/admin/risk/deny/address/${encodeURIComponent('T\uFFFDx')}`, { token: h.adminToken }))).toEqual({ removed: true });
    expect(ok(await h.call('GET', '/api/admin/risk/deny', { token: h.adminToken }))).toEqual([]);
  });

  it('decomposed and padded spellings name the composed entry', async () => {
    ok(await h.call('POST', '/api/admin/risk/deny', { token: h.adminToken, body: { kind: 'user', value: ' cafe\u0301 ' } }), 201);
    expect(ok(await h.call('DELETE', `/api/admin/risk/deny/user/${encodeURIComponent('caf\u00e9')}`, { token: h.adminToken }))).toEqual({ removed: true });
  });
});
