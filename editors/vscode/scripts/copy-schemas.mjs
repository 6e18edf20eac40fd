// Copies the repository's JSON Schemas (schemas/, the single source) into
// the extension for contributes.tomlValidation / jsonValidation.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const extension = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(extension, '..', '..', 'schemas');
const target = join(extension, 'schemas');
mkdirSync(target, { recursive: true });
for (const name of readdirSync(source).filter((n) => n.endsWith('.schema.json'))) {
  copyFileSync(join(source, name), join(target, name));
}
