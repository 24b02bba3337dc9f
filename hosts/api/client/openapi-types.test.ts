import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_PATH, clientView, generateClientTypes, idempotentRoutes, servedOpenApi } from '../../../scripts/client-types.js';
import { startHarness } from '../test-harness.js';

describe('the client types (packages/client/src/openapi-types.ts)', () => {
  it('are what `npm run client:types` generates from the current OpenAPI document, byte for byte', async () => {
    const committed = readFileSync(new URL(`../../../${CLIENT_TYPES_PATH}`, import.meta.url), 'utf8');
    // On failure: run `npm run client:types` and commit the result.
    expect(committed === await generateClientTypes(), 'openapi-types.ts is stale: run npm run client:types').toBe(true);
  });

  it('come from the document the API serves at /api/openapi.json', async () => {
    const h = await startHarness();
    try {
      const served = await h.call('GET', '/api/openapi.json');
      expect(JSON.parse(served.text)).toEqual(servedOpenApi());
    } finally {
      await h.close();
    }
  });

  it('make Idempotency-Key optional (the client generates it) on exactly the idempotent routes', () => {
    const document = servedOpenApi();
    const routes = idempotentRoutes(document);
    expect(routes).toContain('POST /api/collections');
    expect(routes).toContain('POST /api/cashier/collect');
    const view = clientView(document) as { paths: Record<string, Record<string, { parameters?: { name: string; required?: boolean }[] }>> };
    const key = view.paths['/api/collections']?.['post']?.parameters?.find((p) => p.name === 'Idempotency-Key');
    expect(key?.required).toBe(false);
    expect(JSON.stringify(document)).not.toBe(JSON.stringify(view));
  });
});
