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
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch {
      // The client went away mid-body: its fault, not a server error (no 500, no error-level log line).
      throw validationError('body', 'was not received completely');
    }
    const { done, value } = next;
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

/** Deepest nesting a body may have: the spec's bodies nest two levels; recursion over hostile depth would overflow. */
export const MAX_BODY_DEPTH = 32;

/** Nesting depth of JSON text (brackets inside strings ignored), counted without recursion. */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > max) max = depth;
    } else if (c === 0x7d || c === 0x5d) {
      depth -= 1;
    }
  }
  return max;
}

/**
 * The JSON object body of a request. An empty body is `{}` (optional bodies such as refresh `{force}` or disable
 * `{reason}`); malformed JSON, a non-object value or nesting deeper than MAX_BODY_DEPTH is 422 VALIDATION-ERROR
 * naming `body`, never h3's default 400.
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
  // Checked on valid JSON only, so the count is exact; a hashing or logging walk of the body then stays shallow.
  if (nestingDepth(text) > MAX_BODY_DEPTH) throw validationError('body', `must nest at most ${MAX_BODY_DEPTH} levels`);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw validationError('body', 'must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}
