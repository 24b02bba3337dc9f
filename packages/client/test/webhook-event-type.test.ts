import { describe, expectTypeOf, it } from 'vitest';
import type { WebhookEvent, WebhookEventType } from '../src/client.js';

describe('WebhookEvent (types generated from the document\'s webhooks)', () => {
  it('names every event type and narrows the union on event_type', () => {
    expectTypeOf<WebhookEventType>().toEqualTypeOf<'withdrawal.completed' | 'withdrawal.failed' | 'collection.completed' | 'collection.failed' | 'webhook.test'
      | 'deposit.pending' | 'deposit.confirmed' | 'deposit.reverted' | 'payment.paid' | 'payment.expired' | 'payment.paid_late'
      | 'ledger.discrepancy'>();
    expectTypeOf<WebhookEvent<'collection.completed'>['task_no']>().toEqualTypeOf<string>();
    const narrow = (event: WebhookEvent): string | null => (event.event_type === 'collection.completed' ? event.task_no : null);
    expectTypeOf(narrow).returns.toEqualTypeOf<string | null>();
  });
});
