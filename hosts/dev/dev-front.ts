import { H3 } from 'h3';
import { FaucetRefusal, type DevnetFaucet } from './devnet-faucet.js';

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });

/**
 * The HTTP front of `npm start`: `POST /dev/faucet` (`{"address","asset_symbol":"TRX"|"USDT","amount":"<smallest
 * units>"}` → 200 `{txid, from, to, asset_symbol, amount}`, 422 `{error}` for a bad request) and everything else
 * handed to the API app unchanged. The faucet is a sandbox tool beside the API, not part of it: it is absent from the
 * route table and /openapi.json, and only `npm start` serves it.
 */
export function devFront(api: H3, faucet: DevnetFaucet): H3 {
  const front = new H3();
  front.post('/dev/faucet', async (event) => {
    const body = (await event.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return json(422, { error: 'body: a JSON object' });
    try {
      return json(200, await faucet.send(String(body['address'] ?? ''), String(body['asset_symbol'] ?? ''), String(body['amount'] ?? '')));
    } catch (error) {
      if (error instanceof FaucetRefusal) return json(422, { error: error.message });
      return json(502, { error: `the devnet refused the payment: ${(error as Error).message}` });
    }
  });
  front.all('/**', (event) => api.fetch(event.req));
  return front;
}
