import { approvalRequestPayload, judgeApprovalAnswer, signedApprovalRequest, type ApprovalVerdict } from '../../domain/approval.js';
import type { Command } from '../../domain/model/command.js';
import type { CommandApproval } from '../../domain/model/withdrawal-policy.js';
import type { AuditLog } from '../../ports/audit-log.port.js';
import type { IdGenerator } from '../../ports/id-generator.port.js';
import type { KeyCipher } from '../../ports/key-cipher.port.js';
import type { WebhookTransport } from '../../ports/webhook-transport.port.js';
import type { WithdrawalPolicyRepository } from '../../ports/withdrawal-policy-repository.port.js';
import { approvalSecretAad } from '../withdrawal-policies.service.js';

/** The ports asking an approver takes; without transport or policies no approval can ever arrive (fail closed). */
export interface ApprovalRequestDeps {
  readonly ids: IdGenerator;
  readonly cipher: KeyCipher;
  readonly transport?: WebhookTransport;
  readonly withdrawalPolicies?: WithdrawalPolicyRepository;
  /** Where approval requests and decisions are recorded (the account's audit trail), when given. */
  readonly auditLog?: AuditLog;
}

/**
 * Asks the account's approver about a PENDING withdrawal once (issue #26 item 2): a request signed with the approval
 * secret, with a fresh request_id, POSTed through the webhook transport (the same SSRF rules: https on the default
 * port, resolved once, every address checked, pinned, no redirects, 15 s) to the APPROVED approval_url as it is now.
 * Only a 2xx whose body is a signed answer to this very request, command and amount decides (judgeApprovalAnswer);
 * anything else is a refusal with its reason, and the worker asks again later until the deadline.
 */
export async function askApprover(deps: ApprovalRequestDeps, command: Command, approval: CommandApproval, now: number): Promise<ApprovalVerdict> {
  const policy = deps.transport === undefined ? null : await deps.withdrawalPolicies?.get(command.userId) ?? null;
  if (deps.transport === undefined || policy === null || policy.approval.url === null || policy.approval.secret === null) {
    return { kind: 'refused', reason: 'no approved approval_url with an approval secret' };
  }
  const secret = new TextDecoder().decode(await deps.cipher.decrypt(policy.approval.secret, approvalSecretAad(command.userId)));
  const requestId = deps.ids.uuid();
  const { body, headers } = signedApprovalRequest(approvalRequestPayload(command, requestId, approval.deadline, now), secret);
  const result = await deps.transport.post({ url: policy.approval.url, headers, body });
  if (!result.ok) return { kind: 'refused', reason: `the approver did not answer 2xx (${result.status ?? result.error})` };
  return judgeApprovalAnswer(result.response, { requestId, commandNo: command.commandNo, amount: command.params['amount'] ?? '' }, secret);
}
