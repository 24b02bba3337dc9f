// Adapters on node: built-ins, used in production and by the embedded default alike.
export { SystemClock } from './system-clock.js';
export { AesGcmKeyCipher, DEFAULT_KEY_ID, type AesGcmKeyCipherOptions } from './aes-gcm-key-cipher.js';
export { NodeSecretHasher, DEFAULT_SCRYPT_COST, TEST_SCRYPT_COST, type ScryptCost } from './node-secret-hasher.js';
export { NodeDnsResolver, type LookupAll } from './node-dns-resolver.js';
export { ConsoleMailer, type LineWriter } from './console-mailer.js';
export { SmtpMailer, type SmtpMailerOptions } from './smtp-mailer.js';
export { OtpauthTotpGenerator } from './otpauth-totp-generator.js';
