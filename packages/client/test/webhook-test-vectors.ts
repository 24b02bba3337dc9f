/**
 * Known-answer vectors for both webhook signatures, shared by every test that checks signing or verification (and
 * by the snippets of docs/integration.md). Expected values were computed outside this code base with
 * `openssl dgst -sha256 -hmac <secret>` (hex for spec §6, `-binary | base64` for Standard Webhooks), the canonical
 * JSON with a separate sort (shorter UTF-8 key first, then byte order). Bodies are exactly what the server sends
 * (`JSON.stringify` output): nested values keep their order and number spelling, only the top level is sorted.
 */
export interface WebhookVector {
  readonly name: string;
  readonly secret: string;
  /** The body exactly as sent. */
  readonly body: string;
  /** Spec §6: the signed string and the `X-Webhook-Signature` value. */
  readonly canonical: string;
  readonly specSignature: string;
  /** Standard Webhooks: `webhook-id`, `webhook-timestamp` and the `v1,` entry for `secret`. */
  readonly id: string;
  readonly timestamp: number;
  readonly standardSignature: string;
}

export const WEBHOOK_VECTORS: readonly WebhookVector[] = [
  {
    name: 'collection.completed',
    secret: 'whsec-test-0123456789',
    body: '{"event_id":"6f1c2a9e-0b4d-4e7a-9c3f-2d8e5b7a1c40","event_type":"collection.completed","occurred_at":"2026-05-25T10:00:00+00:00","task_no":"T42","status":11,"network_code":"TRON","asset_symbol":"USDT","address":"TXYZ","swept_amount":1500000,"sweep_tx_hash":"ab12","credited_at":"2026-05-25T10:00:00+00:00","error":null}',
    canonical: '{"error":null,"status":11,"address":"TXYZ","task_no":"T42","event_id":"6f1c2a9e-0b4d-4e7a-9c3f-2d8e5b7a1c40","event_type":"collection.completed","credited_at":"2026-05-25T10:00:00+00:00","occurred_at":"2026-05-25T10:00:00+00:00","asset_symbol":"USDT","network_code":"TRON","swept_amount":1500000,"sweep_tx_hash":"ab12"}',
    specSignature: 'sha256=5002c816277dd9941037cb959af2f1d4f00fb29a836f77b32cb5ab255db9f695',
    id: '6f1c2a9e-0b4d-4e7a-9c3f-2d8e5b7a1c40',
    timestamp: 1779703200,
    standardSignature: 'v1,CDbIgNbtKMU9Oh5dLa5B3erRd5uyCPkI70qv+QUBFng=',
  },
  {
    name: 'non-ASCII values and keys of equal length',
    secret: 'whsec-test-0123456789',
    body: '{"event_id":"e-ü","event_type":"withdrawal.failed","error":"節點拒絕","txid":null}',
    canonical: '{"txid":null,"error":"節點拒絕","event_id":"e-ü","event_type":"withdrawal.failed"}',
    specSignature: 'sha256=9291c6d8670e5d0fa7360df4c283a1586ac8106fe7bb92c690fff1f9b90cf98e',
    id: 'e-ü',
    timestamp: 1779703200,
    standardSignature: 'v1,N2IDjQII8kqi0hZzqLJhXkiSFrWYNS4PQ5jXkmRRyXI=',
  },
  {
    name: 'nested objects and arrays, numbers as sent, escapes, keys ordered by UTF-8 bytes (not UTF-16)',
    secret: 'whsec-nested-✓-secret',
    body: '{"event_id":"0b9d7c4e-5a1f-4f6e-8c2d-3e4f5a6b7c8d","event_type":"webhook.test","occurred_at":"2026-05-25T10:00:00+00:00","meta":{"2":"two","10":"ten","z":1,"a":[true,false,null,{"y":"ÿ","b":[]}],"ü":"naïve \\"quoted\\" \\\\ \\n\\u001f"},"amounts":[0,-1,2.5,1e+21,0.000001,12345678901234],"金额":"1500000","a/b":"<&>\u2028/","😀":"emoji key","Ａa":"fullwidth key","empty":{}}',
    canonical: '{"a/b":"<&>\u2028/","meta":{"2":"two","10":"ten","z":1,"a":[true,false,null,{"y":"ÿ","b":[]}],"ü":"naïve \\"quoted\\" \\\\ \\n\\u001f"},"Ａa":"fullwidth key","😀":"emoji key","empty":{},"金额":"1500000","amounts":[0,-1,2.5,1e+21,0.000001,12345678901234],"event_id":"0b9d7c4e-5a1f-4f6e-8c2d-3e4f5a6b7c8d","event_type":"webhook.test","occurred_at":"2026-05-25T10:00:00+00:00"}',
    specSignature: 'sha256=8e1f30d3e752b20547caa9c7a3747d290ab68201c443371e30617d0d1a5f2488',
    id: '0b9d7c4e-5a1f-4f6e-8c2d-3e4f5a6b7c8d',
    timestamp: 1779703200,
    standardSignature: 'v1,fTiQQQKUwQJvUPmXhjqVTT6VGiD9oeBxaYwYjEnej9w=',
  },
];

/** The first vector's body signed with a replaced secret: what the second `v1,` entry carries during a rotation. */
export const ROTATION_VECTOR = {
  previousSecret: 'old-secret-ünïcode',
  standardSignature: 'v1,PuycuA/GXycJ/2pjepwSCyI9FpGwn40pjxkKO3rbShQ=',
} as const;
