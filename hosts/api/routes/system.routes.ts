import { DomainError } from '../../../core/domain/errors.js';
import { defineRoute, type RouteDef } from '../route.js';
import { s } from '../openapi-schemas.js';
import { apiDocsRoutes } from './api-docs.routes.js';

/** One backing service's answer to the readiness probe. */
export interface ReadinessCheck {
  readonly name: string;
  readonly ok: boolean;
}

/** Probes the adapters (store, locks, chain) for /readyz; must not throw. */
export type ReadinessProbe = () => Promise<readonly ReadinessCheck[]>;

/** Liveness, readiness, the OpenAPI document and its reference page (no token). */
export function systemRoutes(readiness: ReadinessProbe, openapi: () => unknown): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: '/api/healthz', auth: 'none',
      docs: { operationId: 'getHealth', summary: 'Liveness: the process answers', tag: 'System', data: s.obj({ status: s.enumOf(['ok']) }) },
      handle: () => Promise.resolve({ status: 'ok' }),
    }),
    defineRoute({
      method: 'GET', path: '/api/readyz', auth: 'none',
      docs: {
        operationId: 'getReadiness',
        example: { status: 'ready', checks: [{ name: 'store', ok: true }, { name: 'locks', ok: true }, { name: 'chain', ok: true }] },
        summary: 'Readiness: every backing service is reachable', tag: 'System',
        data: s.obj({ status: s.enumOf(['ready']), checks: s.arr(s.obj({ name: s.str(), ok: s.bool() })) }), errors: ['SERVICE-UNAVAILABLE'],
      },
      handle: async () => {
        const checks = await readiness();
        const failed = checks.filter((c) => !c.ok).map((c) => c.name);
        if (failed.length > 0) throw new DomainError('SERVICE-UNAVAILABLE', { message: `not ready: ${failed.join(', ')}` });
        return { status: 'ready', checks };
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/openapi.json', auth: 'none',
      docs: {
        operationId: 'getOpenApiDocument', summary: 'This API as an OpenAPI 3.1 document (bare, not enveloped)', tag: 'System',
        data: {
          type: 'object', required: ['openapi', 'info', 'paths'], additionalProperties: {},
          properties: { openapi: s.enumOf(['3.1.0']), info: { type: 'object' }, paths: { type: 'object' } },
        },
        produces: 'application/json', example: { openapi: '3.1.0', info: { title: 'Custody Hub API', version: 'M1' }, paths: {} },
      },
      handle: () => Promise.resolve({ raw: { contentType: 'application/json; charset=utf-8', body: JSON.stringify(openapi()) } }),
    }),
    ...apiDocsRoutes(),
  ];
}
