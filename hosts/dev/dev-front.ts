import { H3, type H3Event } from 'h3';
import type { Logger } from 'pino';
import { onH3Error } from '../api/api-app.js';
import { failureReply, okReply, toHttpResponse, type ApiReply } from '../api/envelope.js';
import { requestIdOf } from '../api/pipeline.js';
import type { DevMailbox } from './dev-mailbox.js';
import { FaucetRefusal, type DevnetFaucet } from './devnet-faucet.js';

/** What the dev routes answer with, in the API's envelope and headers (x-request-id, no-store, nosniff). */
const answer = (event: H3Event, reply: ApiReply): Response => toHttpResponse(reply, { 'x-request-id': requestIdOf(event) });

/** What the front serves itself; everything else goes to the API app. */
export interface DevFrontTools {
  readonly faucet: DevnetFaucet;
  /** `npm start`'s mailbox (GET /dev/verification-code); absent in `npm run serve` and `npm run api`, which mail by SMTP. */
  readonly mailbox?: DevMailbox;
  /** The API's request logger: errors raised before routing are logged and answered as `npm run api` does. */
  readonly logger: Logger;
}

/**
 * The HTTP front of `npm start`, in the API's envelope like every answer of the API:
 * - `POST /dev/faucet` (`{"address","asset_symbol":"TRX"|"USDT","amount":"<smallest units>"}`) → 200 with
 *   `data: {txid, from, to, asset_symbol, amount}`; 422 VALIDATION-ERROR for a bad request; 502 CHAIN-BROADCAST-FAILED
 *   when the devnet refuses the payment.
 * - `GET /dev/verification-code?email=` → 200 with `data: {email, code}`, the latest verification code mailed to that
 *   address in this run (what the printed quickstart verifies with); 404 NOT-FOUND when none was; 422 without `email`.
 * Everything else is handed to the API app unchanged. These are sandbox tools beside the API, not part of it: absent
 * from the route table and /openapi.json. `npm start` serves both; `npm run serve` and `npm run api` serve the faucet
 * on CHAIN=devnet only (no mailbox: they mail by SMTP), and neither on any other chain.
 * A request h3 refuses before routing (a malformed percent-encoding) gets the API's own answer.
 */
export function devFront(api: H3, tools: DevFrontTools): H3 {
  const front = new H3({ silent: true, onError: onH3Error(tools.logger) });
  front.post('/dev/faucet', async (event) => {
    const body = (await event.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return answer(event, failureReply('VALIDATION-ERROR', { message: 'body: a JSON object' }));
    }
    try {
      return answer(event, okReply(await tools.faucet.send(String(body['address'] ?? ''), String(body['asset_symbol'] ?? ''), String(body['amount'] ?? ''))));
    } catch (error) {
      if (error instanceof FaucetRefusal) return answer(event, failureReply('VALIDATION-ERROR', { message: error.message }));
      return answer(event, failureReply('CHAIN-BROADCAST-FAILED', { message: `the devnet refused the payment: ${(error as Error).message}` }));
    }
  });
  const mailbox = tools.mailbox;
  if (mailbox !== undefined) {
    front.get('/dev/verification-code', (event) => {
      const email = event.url.searchParams.get('email')?.trim() ?? '';
      if (email === '') return answer(event, failureReply('VALIDATION-ERROR', { message: 'email: required (?email=<address>)' }));
      const code = mailbox.verificationCode(email);
      if (code === null) return answer(event, failureReply('NOT-FOUND', { message: `no verification code was sent to ${email} in this run` }));
      return answer(event, okReply({ email, code }));
    });
  }
  front.all('/**', (event) => api.fetch(event.req));
  return front;
}
