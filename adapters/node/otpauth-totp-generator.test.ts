import { describeTotpGeneratorContract } from '../../contracts-tests/totp-generator.contract.js';
import { OtpauthTotpGenerator } from './otpauth-totp-generator.js';

describeTotpGeneratorContract('OtpauthTotpGenerator', () => new OtpauthTotpGenerator());
