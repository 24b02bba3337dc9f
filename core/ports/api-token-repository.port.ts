import type { ApiToken } from '../domain/model/account.js';
import type { UserId } from '../domain/model/common.js';

export interface ApiTokenRepository {
  create(token: ApiToken): Promise<void>;
  /**
   * Inserts the token only while its user holds fewer than `max` unrevoked tokens; false (nothing written) otherwise.
   * Atomic per user across processes: of concurrent calls beyond the cap, exactly `max` minus the held ones succeed.
   */
  createWithinCap(token: ApiToken, max: number): Promise<boolean>;
  findById(id: number): Promise<ApiToken | null>;
  findByTokenHash(tokenHash: string): Promise<ApiToken | null>;
  /** The user's unrevoked tokens, oldest (lowest id) first. */
  listActiveByUser(userId: UserId): Promise<ApiToken[]>;
  /** Sets revokedAt when not yet revoked; returns the token as stored after the call, or null when unknown. */
  revoke(id: number, at: number): Promise<ApiToken | null>;
  /** Records a use: lastUsedAt becomes `at` unless it is already later. Unknown ids are ignored. */
  markUsed(id: number, at: number): Promise<void>;
  /**
   * Sets an unrevoked token's expiresAt (null: never) and clears its reviewSince (the owner reviewed it); returns the
   * token as stored after the call, or null when unknown. A revoked token is returned unchanged.
   */
  setExpiry(id: number, expiresAt: number | null): Promise<ApiToken | null>;
  /** Sets reviewSince to `at` on every unrevoked token of the user not marked yet; returns how many it marked. */
  markAllForReview(userId: UserId, at: number): Promise<number>;
}
