import type { EncryptedEnvelope, Millis, NetworkCode, UserId, Versioned } from './common.js';

export const ADDRESS_TYPE = { MAIN: 1, SUB: 2 } as const;
export type AddressType = (typeof ADDRESS_TYPE)[keyof typeof ADDRESS_TYPE];

export const ADDRESS_STATUS = { DISABLED: 0, ACTIVE: 1 } as const;
export type AddressStatus = (typeof ADDRESS_STATUS)[keyof typeof ADDRESS_STATUS];

export interface WalletAddress extends Versioned {
  readonly id: number;
  readonly userId: UserId;
  readonly networkCode: NetworkCode;
  readonly address: string;
  readonly addressType: AddressType;
  readonly label: string | null;
  readonly status: AddressStatus;
  /** The private key, AES-256-GCM encrypted with the address as additional authenticated data. Never returned. */
  readonly encryptedKey: EncryptedEnvelope;
  readonly createdAt: Millis;
}

export const MAX_ADDRESS_LABEL_LENGTH = 120;
