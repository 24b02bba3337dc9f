/** `npm run client:types`: writes packages/client/src/openapi-types.ts from the OpenAPI document (scripts/client-types.ts). */
import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_PATH, generateClientTypes } from './client-types.js';

writeFileSync(CLIENT_TYPES_PATH, await generateClientTypes());
process.stdout.write(`wrote ${CLIENT_TYPES_PATH}\n`);
