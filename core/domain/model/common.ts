/** Epoch milliseconds (UTC). Every timestamp inside the core is one; formatting happens at the edge (core/domain/time). */
export type Millis = number;

/** Integer ids of users, wallet addresses and API tokens (spec: wallet_address_id is an integer). */
export type UserId = number;

/** Every stored aggregate carries a version for optimistic concurrency: a write names the version it read. */
export interface Versioned {
  readonly version: number;
}

/** AES-256-GCM envelope: ciphertext plus what is needed to open it again (key id for rotation). All base64. */
export interface EncryptedEnvelope {
  readonly keyId: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
}

export type NetworkCode = 'TRON';

/** A worker's claim on a stored workflow (a collection task, a reclaim, a command): who holds it, and until when. */
export interface Lease {
  readonly owner: string;
  readonly expiresAt: Millis;
}
