import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type ApiHarness } from '../test-harness.js';

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The reference page over HTTP (the browser suite renders it; this runs without chromium). */
describe('GET /api/docs', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it('is an HTML page under the strict CSP, with no inline script or style, that cannot be framed', async () => {
    const res = await h.call('GET', '/api/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect([res.headers.get('content-security-policy'), res.headers.get('x-frame-options'), res.headers.get('x-content-type-options')]).toEqual([CSP, 'DENY', 'nosniff']);
    expect([...res.text.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)].map((m) => [/ src="\/api\/docs\//.test(m[1]!), m[2]])).toEqual([[true, ''], [true, '']]);
    expect(res.text).not.toMatch(/<style|style=|https?:\/\//);
  });

  it('serves every file the page links to, Swagger UI exactly as installed, and the initializer pointing at /api/openapi.json', async () => {
    const page = (await h.call('GET', '/api/docs')).text;
    const linked = [...page.matchAll(/(?:src|href)="(\/api\/docs\/[^"]+)"/g)].map((m) => m[1]!);
    expect(linked.sort()).toEqual(['/api/docs/api-docs.js', '/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui.css']);
    const types: string[] = [];
    for (const path of linked) {
      const res = await h.call('GET', path);
      expect(res.status, path).toBe(200);
      types.push(`${path.split('/').at(-1)} ${res.headers.get('content-type')}`);
    }
    expect(types.sort()).toEqual([
      'api-docs.js text/javascript; charset=utf-8', 'swagger-ui-bundle.js text/javascript; charset=utf-8', 'swagger-ui.css text/css; charset=utf-8',
    ]);
    const installed = readFileSync(createRequire(import.meta.url).resolve('swagger-ui-dist/swagger-ui-bundle.js'), 'utf8');
    expect((await h.call('GET', '/api/docs/swagger-ui-bundle.js')).text === installed).toBe(true);
    expect((await h.call('GET', '/api/docs/api-docs.js')).text).toContain("url: '/api/openapi.json'");
  });
});
