/** Named integer sequences the spec exposes as ids (wallet_address_id, user id, API token id). */
export type Sequence = 'user' | 'wallet_address' | 'api_token' | 'member';

/** The only source of ids and randomness in the core. */
export interface IdGenerator {
  /** Next integer of the sequence, starting at 1; unique across every process sharing the store. */
  nextInt(sequence: Sequence): Promise<number>;
  /** A random RFC 4122 v4 UUID (event ids, lease owners). */
  uuid(): string;
  /** `length` cryptographically random bytes (secret tokens, verification codes). */
  randomBytes(length: number): Uint8Array;
}
