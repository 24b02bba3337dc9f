import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionEvent, withdrawalEvent } from '../../core/application/webhook-events.js';
import { COLLECTION_STATUS, type CollectionTask } from '../../core/domain/model/collection-task.js';
import { COMMAND_STATUS, COMMAND_TYPE, type Command } from '../../core/domain/model/command.js';
import { DELIVERY_STATUS, WEBHOOK_EVENT_TYPES } from '../../core/domain/model/webhook.js';
import { signPayload } from '../../core/domain/signature.js';
import { signStandardWebhook } from '../../core/domain/standard-webhooks.js';
import { schemaProblems, withInlineResponses } from './api-test-fixtures.js';
import { COMPONENT_EXAMPLES } from './openapi-examples.js';
import { COMPONENTS, type JsonSchema } from './openapi-schemas.js';
import { WEBHOOK_EVENTS, WEBHOOK_SCHEMAS } from './openapi-webhooks.js';
import { toOpenApiPath } from './openapi.js';
import { startHarness, type ApiHarness } from './test-harness.js';

type Media = { schema?: JsonSchema; example?: unknown };
type Operation = {
  operationId: string; responses: Record<string, { content?: Record<string, Media>; headers?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, Media> }; parameters?: { name: string; in: string; example?: unknown }[];
  'x-rate-limit'?: unknown; 'x-throttle'?: unknown;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, JsonSchema & { enum?: unknown[]; 'x-enum-varnames'?: string[]; 'x-enum-descriptions'?: string[]; description?: string }>; headers: Record<string, unknown> };
};

const CAMEL_CASE = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$/;
/** The schema of a request body in `webhooks`: a reference to an event schema, which the resource components do not hold. */
const webhookSchema = (schema: JsonSchema): JsonSchema => WEBHOOK_SCHEMAS[String(schema['$ref']).split('/').at(-1) as keyof typeof WEBHOOK_SCHEMAS];

/** Issue #15 part 4: what makes the document useful to an integrator, beyond listing the routes. */
describe('OpenAPI document content', () => {
  let h: ApiHarness;
  let doc: Doc;
  const operations = (): [string, Operation][] =>
    Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as [string, Operation]));

  beforeAll(async () => {
    h = await startHarness();
    doc = withInlineResponses((await h.call('GET', '/api/openapi.json')).json as unknown as Doc);
  });
  afterAll(async () => h.close());

  it('every route has its own camelCase operationId, unique across paths and webhooks', () => {
    for (const route of h.host.routes) {
      const op = doc.paths[toOpenApiPath(route.path)]![route.method.toLowerCase()]!;
      expect({ route: route.path, id: op.operationId }).toEqual({ route: route.path, id: route.docs.operationId });
      expect(route.docs.operationId, route.path).toMatch(CAMEL_CASE);
    }
    const ids = [...operations().map(([, op]) => op.operationId), ...Object.values(doc.webhooks).map((w) => w.post.operationId)];
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids.filter((id) => !CAMEL_CASE.test(id))).toEqual([]);
    const ofPath = (method: string, path: string): string => doc.paths[path]![method]!.operationId;
    expect([ofPath('post', '/api/collections'), ofPath('get', '/api/collections/{taskNo}'), ofPath('get', '/api/wallets'), ofPath('post', '/api/auth/login')])
      .toEqual(['createCollection', 'getCollection', 'listWallets', 'login']);
  });

  it('status enums carry the names and values of core\'s constants, with a description per value; nothing says "spec §2"', () => {
    const named = (name: string, constant: Readonly<Record<string, number>>): void => {
      const schema = doc.components.schemas[name]!;
      expect({ name, values: schema.enum, names: schema['x-enum-varnames'] }).toEqual({ name, values: Object.values(constant), names: Object.keys(constant) });
      expect(schema['x-enum-descriptions']?.filter((d) => d.length > 0)).toHaveLength(Object.keys(constant).length);
      for (const [key, value] of Object.entries(constant)) expect(schema.description).toContain(`- ${value} = ${key}: `);
    };
    named('CollectionStatus', COLLECTION_STATUS);
    named('CommandStatus', COMMAND_STATUS);
    named('CommandType', COMMAND_TYPE);
    named('DeliveryStatus', DELIVERY_STATUS);
    expect(doc.components.schemas['CollectionStatus']!.description).toContain('- 11 = DONE: all steps complete');
    const field = (schema: string, property: string): unknown => (doc.components.schemas[schema]!['properties'] as Record<string, unknown>)[property];
    expect([field('CollectionTask', 'status'), field('CashierTask', 'status'), field('Command', 'status'), field('Command', 'type'), field('Wallet', 'address_type')])
      .toEqual([{ $ref: '#/components/schemas/CollectionStatus' }, { $ref: '#/components/schemas/CollectionStatus' },
        { $ref: '#/components/schemas/CommandStatus' }, { $ref: '#/components/schemas/CommandType' }, { $ref: '#/components/schemas/AddressType' }]);
    expect(JSON.stringify(doc)).not.toMatch(/spec §2/);
  });

  /** The routes whose request may loosen a control, and so answer 202 with a pending change beside their 200. */
  const LOOSENINGS = new Set([
    'PUT /api/policies/withdrawal', 'POST /api/auth/2fa/disable', 'POST /api/members', 'PATCH /api/members/{memberId}',
  ]);

  it('every operation has a success example and, with a body, a request example; each matches its schema, as do the error examples', () => {
    const problems: string[] = [];
    for (const [name, op] of operations()) {
      const success = Object.entries(op.responses).filter(([status]) => Number(status) < 300);
      // One success answer; a loosening also answers 202 with a pending change (issue #35 item 3).
      expect(success.map(([status]) => status), name).toEqual(LOOSENINGS.has(name) ? [success[0]![0], '202'] : [success[0]![0]]);
      for (const [status, response] of Object.entries(op.responses)) {
        const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
        if (Number(status) < 300) expect({ name, example: media?.example !== undefined }).toEqual({ name, example: true });
        if (media?.example === undefined) continue;
        if (mediaType === 'application/json') problems.push(...schemaProblems(media.example, media.schema!, `${name} ${status}`));
        else expect(typeof media.example, name).toBe('string');
      }
      if (op.requestBody !== undefined) {
        const media = op.requestBody.content['application/json']!;
        expect({ name, example: media.example !== undefined }).toEqual({ name, example: true });
        problems.push(...schemaProblems(media.example, media.schema!, `${name} body`));
      }
    }
    expect(problems).toEqual([]);
  });

  it('every named schema has an example that matches it', () => {
    expect(Object.keys(COMPONENT_EXAMPLES).sort()).toEqual(Object.keys(COMPONENTS).sort());
    const problems = Object.entries(COMPONENT_EXAMPLES)
      .flatMap(([name, example]) => schemaProblems(example, COMPONENTS[name as keyof typeof COMPONENTS], name));
    expect(problems).toEqual([]);
  });

  it('the checker the examples go through catches a wrong example', () => {
    expect(schemaProblems({ ...COMPONENT_EXAMPLES.CollectionTask, status: 3 }, COMPONENTS.CollectionTask, 'task')).toEqual(['task.status: 3 not in [1,2,6,8,11,12,15,16,17]']);
    expect(schemaProblems({ ...COMPONENT_EXAMPLES.Wallet, extra: 1 }, COMPONENTS.Wallet, 'wallet')).toEqual(['wallet.extra: undocumented property']);
  });

  it('rate-limit headers are defined once under components.headers and every limited answer references them', () => {
    expect(Object.keys(doc.components.headers).sort()).toEqual(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']);
    const ref = (name: string): unknown => ({ $ref: `#/components/headers/${name}` });
    let limited = 0;
    for (const [name, op] of operations()) {
      if (op['x-rate-limit'] === undefined && op['x-throttle'] === undefined) {
        expect({ name, headers: Object.values(op.responses).filter((r) => r.headers !== undefined).length }).toEqual({ name, headers: 0 });
        continue;
      }
      limited += 1;
      const success = Object.entries(op.responses).find(([status]) => Number(status) < 300)![1];
      const { 'X-RateLimit-Limit': limit, 'X-RateLimit-Remaining': remaining, ...own } = success.headers as Record<string, object>;
      expect({ name, headers: { 'X-RateLimit-Limit': limit, 'X-RateLimit-Remaining': remaining } })
        .toEqual({ name, headers: { 'X-RateLimit-Limit': ref('X-RateLimit-Limit'), 'X-RateLimit-Remaining': ref('X-RateLimit-Remaining') } });
      // A route's own success headers (the balance refresh's cooldown) are described where they are set, not referenced.
      expect({ name, own: Object.values(own).filter((header) => '$ref' in header) }).toEqual({ name, own: [] });
      expect({ name, headers: op.responses['429']?.headers }).toEqual({
        name, headers: { 'X-RateLimit-Limit': ref('X-RateLimit-Limit'), 'X-RateLimit-Remaining': ref('X-RateLimit-Remaining'), 'Retry-After': ref('Retry-After') },
      });
    }
    expect(limited).toBeGreaterThan(20);
  });

  it('webhooks: one entry per event type core sends, with the spec and Standard Webhooks headers signed over the example', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const type of WEBHOOK_EVENT_TYPES) {
      const post = doc.webhooks[type]!.post;
      const media = post.requestBody!.content['application/json']!;
      const example = media.example as Record<string, never>;
      expect({ type, problems: schemaProblems(example, webhookSchema(media.schema!), type) }).toEqual({ type, problems: [] });
      expect(example['event_type']).toBe(type);
      const headers = Object.fromEntries((post.parameters ?? []).filter((p) => p.in === 'header').map((p) => [p.name, p.example]));
      expect(Object.keys(headers).sort()).toEqual(['X-Event-Id', 'X-Event-Type', 'X-Webhook-Signature', 'webhook-id', 'webhook-signature', 'webhook-timestamp']);
      expect(headers['X-Webhook-Signature']).toBe(signPayload(example, 'example-secret'));
      expect(headers['webhook-signature']).toBe(signStandardWebhook(String(headers['webhook-id']), String(headers['webhook-timestamp']), JSON.stringify(example), 'example-secret'));
      expect([headers['X-Event-Id'], headers['webhook-id'], headers['X-Event-Type']]).toEqual([example['event_id'], example['event_id'], type]);
    }
  });

  it('the webhook schemas hold exactly what core\'s event builders send, on success and on failure', () => {
    const at = Date.parse('2026-05-25T10:00:00Z');
    const task = (status: number, sweptAmount: bigint | null): CollectionTask => ({
      taskNo: 'T1', userId: 1, networkCode: 'TRON', assetSymbol: 'USDT', address: 'TSub', status, sweptAmount,
      sweepTxHash: sweptAmount === null ? null : 'ab12', errorCode: 'X', lastError: 'failed', finishedAt: at,
    }) as unknown as CollectionTask;
    const command = (status: number): Command => ({
      commandNo: 'C1', userId: 1, type: COMMAND_TYPE.WITHDRAWAL, status, transaction: { txid: 'ab12' }, errorCode: null, lastError: 'refused', finishedAt: at,
    }) as unknown as Command;
    const payloads = [
      collectionEvent(task(COLLECTION_STATUS.DONE, 1_500_000n), 'e1', at), collectionEvent(task(COLLECTION_STATUS.DONE, 2n ** 60n), 'e2', at),
      collectionEvent(task(COLLECTION_STATUS.FAILED, null), 'e3', at),
      withdrawalEvent(command(COMMAND_STATUS.SUCCESS), 'e4', at), withdrawalEvent(command(COMMAND_STATUS.FAILED), 'e5', at),
    ].map((e) => e.payload);
    const problems = payloads.flatMap((payload) => {
      const event = WEBHOOK_EVENTS[payload['event_type'] as keyof typeof WEBHOOK_EVENTS];
      return schemaProblems(payload, WEBHOOK_SCHEMAS[event.schema], String(payload['event_id']));
    });
    expect(problems).toEqual([]);
  });
});
