/** One-way hashing of secrets: bearer tokens (fast, SHA-256) and passwords (slow, scrypt). */
export interface SecretHasher {
  /** SHA-256 hex of a bearer token; the same token always gives the same hash (lookup key). */
  hashToken(token: string): string;
  /** Salted scrypt hash, self-describing (parameters and salt inside). */
  hashPassword(password: string): Promise<string>;
  /** Constant-time check of a password against hashPassword's output; false (never throws) for a malformed hash. */
  verifyPassword(password: string, hash: string): Promise<boolean>;
}
