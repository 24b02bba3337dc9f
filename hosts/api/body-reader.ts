import type { H3Event } from 'h3';
import { DomainError, validationError } from '../../core/domain/errors.js';

/** DESIGN.md: bodies over 64 KiB are refused with 413. */
export const MAX_BODY_BYTES = 64 * 1024;

function tooLarge(): DomainError {
  return new DomainError('PAYLOAD-TOO-LARGE');
}

/** Refuses early on a declared Content-Length over the limit, before any byte is read. */
export function checkDeclaredLength(event: H3Event): void {
  const declared = event.req.headers.get('content-length');
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
}

/**
 * Reads the raw body, counting the bytes actually received: a client may omit or understate Content-Length
 * (chunked encoding), so the declared length alone cannot enforce the limit.
 */
async function readLimitedText(event: H3Event): Promise<string> {
  const stream = event.req.body;
  if (stream === null) return '';
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/**
 * The JSON object body of a request. An empty body is `{}` (optional bodies such as refresh `{force}` or disable
 * `{reason}`); malformed JSON or a non-object value is 422 VALIDATION-ERROR naming `body`, never h3's default 400.
 */
export async function readJsonObject(event: H3Event): Promise<Record<string, unknown>> {
  const text = await readLimitedText(event);
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw validationError('body', 'must be valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw validationError('body', 'must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}
