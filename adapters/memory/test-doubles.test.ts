import { describe, expect, it } from 'vitest';
import { RecordingWebhookTransport } from '../../core/application/testing/recording-webhook-transport.js';
import { StaticDnsResolver } from '../../core/application/testing/static-dns-resolver.js';
import { MANUAL_CLOCK_DEFAULT_START, ManualClock } from './manual-clock.js';
import { RecordingMailer } from './recording-mailer.js';

describe('ManualClock', () => {
  it('starts at 2026-01-01 by default and moves only when told, never back', () => {
    const clock = new ManualClock();
    expect(clock.now()).toBe(MANUAL_CLOCK_DEFAULT_START);
    clock.advance(1_500);
    clock.advance(0);
    expect(clock.now()).toBe(MANUAL_CLOCK_DEFAULT_START + 1_500);
    clock.set(MANUAL_CLOCK_DEFAULT_START + 2_000);
    expect(clock.now()).toBe(MANUAL_CLOCK_DEFAULT_START + 2_000);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(RangeError);
    expect(() => clock.set(MANUAL_CLOCK_DEFAULT_START)).toThrow(RangeError);
    expect(clock.now()).toBe(MANUAL_CLOCK_DEFAULT_START + 2_000);
  });
});

describe('RecordingMailer', () => {
  it('keeps every code; lastCodeFor is the latest per address, case-insensitive; sent is a copy', async () => {
    const mailer = new RecordingMailer();
    await mailer.sendVerificationCode('a@example.com', '111111', { number: 7, registeredAt: '2026-01-01T00:00:00+00:00' });
    await mailer.sendVerificationCode('b@example.com', '222222', { number: 7, registeredAt: '2026-01-01T00:00:00+00:00' });
    await mailer.sendVerificationCode('A@example.com', '333333', { number: 7, registeredAt: '2026-01-01T00:00:00+00:00' });
    expect(mailer.lastCodeFor('a@EXAMPLE.com')).toBe('333333');
    expect(mailer.lastCodeFor('c@example.com')).toBeUndefined();
    const sent = mailer.sent as unknown as { email: string; code: string }[];
    sent.length = 0;
    expect(mailer.sent).toHaveLength(3);
  });

  it('keeps reset codes apart from verification codes, and the codeless "no account" answers apart from both', async () => {
    const mailer = new RecordingMailer();
    await mailer.sendVerificationCode('a@example.com', '111111', { number: 7, registeredAt: '2026-01-01T00:00:00+00:00' });
    await mailer.sendPasswordResetCode('a@example.com', 'ABCDEFGHJK');
    await mailer.sendPasswordResetUnknown('z@example.com');
    expect(mailer.lastCodeFor('a@example.com')).toBe('111111');
    expect(mailer.lastCodeFor('A@example.com', 'password-reset')).toBe('ABCDEFGHJK');
    expect(mailer.sent.map((m) => m.kind)).toEqual(['verification', 'password-reset']);
    expect(mailer.resetUnknownSent).toEqual(['z@example.com']);
  });
});

describe('core/application/testing doubles', () => {
  it('StaticDnsResolver: table hosts, IP literals as themselves, unknown hosts fail', async () => {
    const dns = new StaticDnsResolver({ 'Hooks.Example.com': ['93.184.216.34', '2001:db8::1'] });
    expect(await dns.resolve('hooks.example.com')).toEqual(['93.184.216.34', '2001:db8::1']);
    expect(await dns.resolve('10.0.0.1')).toEqual(['10.0.0.1']);
    expect(await dns.resolve('::1')).toEqual(['::1']);
    await expect(dns.resolve('nowhere.example.com')).rejects.toThrow(/ENOTFOUND/);
    dns.set('hooks.example.com', []);
    await expect(dns.resolve('hooks.example.com')).rejects.toThrow(/ENOTFOUND/);
  });

  it('RecordingWebhookTransport: records requests; 2xx ok, others not ok with the status', async () => {
    const transport = new RecordingWebhookTransport();
    const request = { url: 'https://hooks.example.com/x', headers: { 'X-Event-Id': 'e1' }, body: '{}' };
    expect(await transport.post(request)).toEqual({ ok: true, status: 200, durationMs: 1 });
    transport.answerWith(503);
    expect(await transport.post(request)).toEqual({ ok: false, status: 503, error: 'HTTP 503', durationMs: 1 });
    transport.answerWith(204);
    expect((await transport.post(request)).ok).toBe(true);
    expect(transport.sent).toEqual([request, request, request]);
  });
});
