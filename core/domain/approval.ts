import { createHash } from 'node:crypto';
import type { Command } from './model/command.js';
import type { Millis } from './model/common.js';
import type { CommandApproval } from './model/withdrawal-policy.js';
import type { JsonValue } from './model/webhook.js';
import { signPayload, verifySignature } from './signature.js';
import { formatIsoTime } from './time.js';

/** The request header carrying the signature of an approval request (spec §6's algorithm, the approval secret). */
export const APPROVAL_SIGNATURE_HEADER = 'X-Approval-Signature';

/**
 * The body of one approval request (issue #26 item 2). `request_id` is fresh for every request: an answer is
 * accepted only for the request it answers, so an answer captured earlier cannot be replayed.
 */
export function approvalRequestPayload(command: Command, requestId: string, deadline: Millis, now: Millis): Record<string, JsonValue> {
  return {
    type: 'withdrawal.approval_requested',
    request_id: requestId,
    command_no: command.commandNo,
    from_address: command.address ?? '',
    to_address: command.params['to_address'] ?? '',
    asset_symbol: command.assetSymbol ?? '',
    amount: command.params['amount'] ?? '',
    requested_at: formatIsoTime(now),
    expires_at: formatIsoTime(deadline),
  };
}

/** The signed request: body and headers; the signature covers the canonical JSON of the body (spec §6). */
export function signedApprovalRequest(payload: Record<string, JsonValue>, secret: string): { body: string; headers: Record<string, string> } {
  return {
    body: JSON.stringify(payload),
    headers: { 'content-type': 'application/json', [APPROVAL_SIGNATURE_HEADER]: signPayload(payload, secret) },
  };
}

/**
 * The fingerprint of an approval secret that the platform's review names (issue #35 item 5): the first 16 hex digits
 * of SHA-256 of the secret's UTF-8 bytes, so an owner can compute it (`printf %s "$SECRET" | sha256sum | cut -c1-16`)
 * and read it to the reviewer. Known answer: `approvalSecretFingerprint('approver secret') === 'e63440bf7e369bab'`
 * (checked by the test). 64 bits identify a secret; they do not make a weak one guessable beyond its own strength.
 */
export function approvalSecretFingerprint(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 16);
}

/** The fields an approver's answer carries besides its signature. */
export const APPROVAL_ANSWER_FIELDS = ['request_id', 'command_no', 'amount', 'decision'] as const;

/** What an answer's body decides: approved, denied, or nothing (then the worker asks again until the deadline). */
export type ApprovalVerdict =
  | { readonly kind: 'approved' }
  | { readonly kind: 'denied' }
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * Judges the body of a 2xx answer to the request `expected`. Only a JSON object with exactly the answer fields plus
 * `signature` (sha256=HMAC of the canonical JSON of the other four, keyed by the approval secret) decides, and only
 * when it names this request, this command and this amount: a forged (unsigned, wrongly signed), replayed (another
 * request's) or mismatched (another command or amount) answer is refused and decides nothing.
 */
export function judgeApprovalAnswer(
  body: string | undefined, expected: { readonly requestId: string; readonly commandNo: string; readonly amount: string }, secret: string,
): ApprovalVerdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body ?? '');
  } catch {
    return { kind: 'refused', reason: 'the answer is not JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { kind: 'refused', reason: 'the answer is not a JSON object' };
  const answer = parsed as Record<string, unknown>;
  const keys = Object.keys(answer).sort();
  if (keys.join(',') !== [...APPROVAL_ANSWER_FIELDS, 'signature'].sort().join(',')) {
    return { kind: 'refused', reason: `the answer must have exactly ${APPROVAL_ANSWER_FIELDS.join(', ')} and signature` };
  }
  if (!APPROVAL_ANSWER_FIELDS.every((key) => typeof answer[key] === 'string') || typeof answer['signature'] !== 'string') {
    return { kind: 'refused', reason: 'every answer field must be a string' };
  }
  const signed = Object.fromEntries(APPROVAL_ANSWER_FIELDS.map((key) => [key, answer[key] as string]));
  if (!verifySignature(signed, secret, answer['signature'])) return { kind: 'refused', reason: 'the answer signature is not valid' };
  if (signed['request_id'] !== expected.requestId) return { kind: 'refused', reason: 'the answer is for another request (replayed)' };
  if (signed['command_no'] !== expected.commandNo) return { kind: 'refused', reason: 'the answer names another command' };
  if (signed['amount'] !== expected.amount) return { kind: 'refused', reason: 'the answer names another amount' };
  if (signed['decision'] === 'approve') return { kind: 'approved' };
  if (signed['decision'] === 'deny') return { kind: 'denied' };
  return { kind: 'refused', reason: 'decision must be approve or deny' };
}

/** How an approver signs its answer (the reference for integrators and tests): the four fields and their signature. */
export function signApprovalAnswer(
  answer: { readonly request_id: string; readonly command_no: string; readonly amount: string; readonly decision: string }, secret: string,
): string {
  const signed = { request_id: answer.request_id, command_no: answer.command_no, amount: answer.amount, decision: answer.decision };
  return JSON.stringify({ ...signed, signature: signPayload(signed, secret) });
}

/**
 * The approval of a withdrawal the platform cancels (decision 145): one still awaiting its approver is closed as
 * `cancelled` at `now`, so the approver is never asked again; a decided one, or none, stays as it is.
 */
export function approvalOnCancel<A extends CommandApproval | null | undefined>(approval: A, now: Millis): A {
  return (approval?.state === 'awaiting' ? { ...approval, state: 'cancelled', decidedAt: now } : approval) as A;
}
