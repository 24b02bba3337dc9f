import { DomainError, validationError } from '../domain/errors.js';
import { checkWebhookHost, checkWebhookHostBeforeLookup, checkWebhookUrlSyntax } from '../domain/webhook-url.js';
import type { DnsResolver } from '../ports/dns-resolver.port.js';

/**
 * A URL the service will call (a webhook_url, an approval_url), as a request field: undefined leaves it unchanged,
 * null or '' removes it, else the normalised URL after the syntax and address checks of spec §6 (localhost and IP
 * literals judged without a lookup; only a name is ever resolved). A refusal is 422 VALIDATION-ERROR naming `field`.
 */
export async function parseCallbackUrl(dns: DnsResolver, allowLocal: boolean, raw: unknown, field: 'webhook_url' | 'approval_url'): Promise<string | undefined> {
  if (raw === undefined) return undefined;
  if (raw === null || raw === '') return '';
  if (typeof raw !== 'string') throw validationError(field, 'must be a string');
  const options = { allowLocal };
  try {
    const url = checkWebhookUrlSyntax(raw, options);
    if (checkWebhookHostBeforeLookup(url, options) !== null) return url.href;
    let resolved: string[];
    try {
      resolved = await dns.resolve(url.hostname);
    } catch {
      throw validationError(field, 'host does not resolve');
    }
    checkWebhookHost(url, resolved, options);
    return url.href;
  } catch (error) {
    // The URL rules name webhook_url in their messages: another field is named as itself.
    if (field !== 'webhook_url' && error instanceof DomainError && error.code === 'VALIDATION-ERROR') {
      throw validationError(field, error.message.replace(/^(webhook|approval)_url: /, ''));
    }
    throw error;
  }
}
