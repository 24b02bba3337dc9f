/** Where a chain scanner persists how far it got, so a restart resumes instead of rescanning or skipping. */
export interface ScanCursorStore {
  /** The last FULLY processed block number of the named scanner, or null before its first block. */
  get(name: string): Promise<number | null>;
  /** Records `block` as fully processed. Only moves forward: a value not above the stored one is ignored. */
  advance(name: string, block: number): Promise<void>;
}
