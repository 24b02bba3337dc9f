import { newSecretToken } from '../domain/cashier-token-rules.js';
import { DomainError, validationError } from '../domain/errors.js';
import { formatIsoTime, parseIsoTime } from '../domain/time.js';
import { API_ACCESS_ABILITY, type ApiToken } from '../domain/model/account.js';
import type { Millis, UserId } from '../domain/model/common.js';
import type { ApiPrincipal, ApiTokensService } from './application.js';
import { AuditTrail } from './audit-trail.js';
import type { ResolvedDeps } from './deps.js';
import { fieldsOf, parseIdParam, requireString } from './input.js';
import type { ApiTokenCreatedView, ApiTokenListView, ApiTokenRevokedView, ApiTokenView } from './views.js';

const MAX_NAME = 100;
/** last_used_at is kept to the minute: at most one write per token and minute. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The ports the API token use cases touch. */
export type ApiTokensDeps = Pick<ResolvedDeps, 'apiTokens' | 'subscriptions' | 'hasher' | 'clock' | 'ids' | 'settings' | 'auditLog' | 'uow'>;

/** Developer API Tokens (`dk_`, ability `api:access`): created with a session, used on the open platform. */
export class ApiTokensUseCases implements ApiTokensService {
  private readonly audit: AuditTrail;

  constructor(private readonly deps: ApiTokensDeps) {
    this.audit = new AuditTrail(deps);
  }

  /**
   * Requires an active developer subscription; the token is shown once and stored as its SHA-256. body.expires_at
   * (extension, issue #35): optional, ISO 8601 in the future; absent or null: the token never expires (spec §5).
   */
  async create(userId: UserId, body: unknown): Promise<ApiTokenCreatedView> {
    const fields = fieldsOf(body);
    const name = requireString(fields, 'name', MAX_NAME);
    const expiresAt = this.parseExpiry(fields['expires_at']);
    const developer = await this.deps.subscriptions.find(userId, 'developer');
    if (developer === null || developer.status !== 'active') throw new DomainError('BIZ-DEVELOPER-SUBSCRIPTION-REQUIRED');
    const token = newSecretToken('dk_', this.deps.ids.randomBytes(this.deps.settings.tokenBytes));
    const record: ApiToken = {
      id: await this.deps.ids.nextInt('api_token'),
      userId,
      name,
      tokenHash: this.deps.hasher.hashToken(token),
      abilities: [API_ACCESS_ABILITY],
      createdAt: this.deps.clock.now(),
      revokedAt: null,
      lastUsedAt: null,
      expiresAt,
      reviewSince: null,
    };
    await this.audit.recordWith(async () => {
      if (!(await this.deps.apiTokens.createWithinCap(record, this.deps.settings.maxApiTokensPerUser))) {
        throw new DomainError('BIZ-API-TOKEN-QUOTA-EXCEEDED');
      }
    }, () => ({
      userId, action: 'api_token.created', actor: { kind: 'user', id: null },
      detail: { token_id: record.id, name, expires_at: expiresAt === null ? null : formatIsoTime(expiresAt) },
    }));
    return {
      id: record.id, name, token, abilities: [...record.abilities], created_at: formatIsoTime(record.createdAt),
      expires_at: expiresAt === null ? null : formatIsoTime(expiresAt),
    };
  }

  /**
   * Sets the expiry of one of the user's tokens (null: never) and clears its review mark (issue #35): the owner's
   * review after a password reset. API-TOKEN-NOT-FOUND when unknown, revoked or another user's.
   */
  async setExpiry(userId: UserId, id: string, body: unknown): Promise<ApiTokenView> {
    const fields = fieldsOf(body);
    if (!('expires_at' in fields)) throw validationError('expires_at', 'is required (an ISO 8601 time in the future, or null)');
    const expiresAt = this.parseExpiry(fields['expires_at']);
    const tokenId = parseIdParam(id, 'id');
    const existing = tokenId === null ? null : await this.deps.apiTokens.findById(tokenId);
    if (existing === null || existing.userId !== userId || existing.revokedAt !== null) throw new DomainError('API-TOKEN-NOT-FOUND');
    const stored = await this.audit.recordWith(async () => {
      const updated = await this.deps.apiTokens.setExpiry(existing.id, expiresAt);
      if (updated === null || updated.revokedAt !== null) throw new DomainError('API-TOKEN-NOT-FOUND');
      return updated;
    }, () => ({
      userId, action: 'api_token.expiry_set', actor: { kind: 'user', id: null },
      detail: { token_id: existing.id, expires_at: expiresAt === null ? null : formatIsoTime(expiresAt) },
    }));
    return tokenView(stored);
  }

  /** An expiry as asked: absent or null is none; else an ISO 8601 time with an offset, after now. */
  private parseExpiry(raw: unknown): Millis | null {
    if (raw === undefined || raw === null) return null;
    const at = typeof raw === 'string' ? parseIsoTime(raw) : null;
    if (at === null) throw validationError('expires_at', 'must be an ISO 8601 time with an offset, or null');
    if (at <= this.deps.clock.now()) throw validationError('expires_at', 'must be in the future');
    return at;
  }

  /** Another user's token answers like a missing one. Revoking twice keeps the first revocation time. */
  async revoke(userId: UserId, id: string): Promise<ApiTokenRevokedView> {
    const tokenId = parseIdParam(id, 'id');
    const existing = tokenId === null ? null : await this.deps.apiTokens.findById(tokenId);
    if (existing === null || existing.userId !== userId) throw new DomainError('API-TOKEN-NOT-FOUND');
    const revoked = await this.audit.recordWith(async () => {
      const stored = await this.deps.apiTokens.revoke(existing.id, this.deps.clock.now());
      if (stored === null || stored.revokedAt === null) throw new DomainError('API-TOKEN-NOT-FOUND');
      return { ...stored, revokedAt: stored.revokedAt };
    }, (stored) => ({ userId, action: 'api_token.revoked', actor: { kind: 'user', id: null }, detail: { token_id: stored.id } }));
    return { id: revoked.id, revoked_at: formatIsoTime(revoked.revokedAt) };
  }

  async list(userId: UserId): Promise<ApiTokenListView> {
    const tokens = await this.deps.apiTokens.listActiveByUser(userId);
    return {
      items: tokens.map(tokenView),
      remaining: Math.max(0, this.deps.settings.maxApiTokensPerUser - tokens.length),
    };
  }

  /**
   * A token authenticates while not revoked and before its expiry, when it has one (issue #35; without one a
   * Developer API Token does not expire, spec §5). Its use is recorded at most once a minute, so an API request costs
   * a store write only when last_used_at would change visibly.
   */
  async authenticateApiToken(token: string): Promise<ApiPrincipal | null> {
    if (!token.startsWith('dk_')) return null;
    const record = await this.deps.apiTokens.findByTokenHash(this.deps.hasher.hashToken(token));
    if (record === null || record.revokedAt !== null) return null;
    const now = this.deps.clock.now();
    if (record.expiresAt != null && now >= record.expiresAt) return null;
    if (record.lastUsedAt === null || now - record.lastUsedAt >= LAST_USED_RESOLUTION_MS) await this.deps.apiTokens.markUsed(record.id, now);
    return { userId: record.userId, tokenId: record.id, abilities: record.abilities };
  }
}

/** GET /api-tokens's view of a token, never its value. */
function tokenView(t: ApiToken): ApiTokenView {
  return {
    id: t.id, name: t.name, abilities: [...t.abilities], created_at: formatIsoTime(t.createdAt),
    last_used_at: t.lastUsedAt === null ? null : formatIsoTime(t.lastUsedAt),
    expires_at: t.expiresAt == null ? null : formatIsoTime(t.expiresAt),
    review_since: t.reviewSince == null ? null : formatIsoTime(t.reviewSince),
  };
}
