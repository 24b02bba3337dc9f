import type { ApiToken } from '../domain/model/account.js';

export interface ApiTokenRepository {
  create(token: ApiToken): Promise<void>;
  findById(id: number): Promise<ApiToken | null>;
  findByTokenHash(tokenHash: string): Promise<ApiToken | null>;
  /** Sets revokedAt when not yet revoked; returns the token as stored after the call, or null when unknown. */
  revoke(id: number, at: number): Promise<ApiToken | null>;
}
