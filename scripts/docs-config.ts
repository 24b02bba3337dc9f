// `npm run docs:config`: writes docs/configuration.md from the list of environment variables in
// hosts/composition/config-schema.ts (hosts/composition/config-schema.test.ts fails when the committed page differs).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderConfigurationDoc } from '../hosts/composition/config-schema.js';

const target = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
writeFileSync(target, renderConfigurationDoc());
process.stdout.write(`wrote ${target}\n`);
