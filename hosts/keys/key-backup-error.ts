/** A failure of keys:export or keys:import the operator can act on. Its message names addresses, counts and key ids, never key material. */
export class KeyBackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyBackupError';
  }
}
