// Copies the repository's JSON Schemas (schemas/, the single source) into
// DIR/ for contributes.tomlValidation / jsonValidation.
//   node scripts/copy-schemas.mjs DIR
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const target = process.argv[2];
if (!target) {
  console.error('usage: copy-schemas.mjs DIR');
  process.exit(2);
}
const source = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'schemas');
mkdirSync(target, { recursive: true });
for (const name of readdirSync(source).filter((n) => n.endsWith('.schema.json'))) {
  copyFileSync(join(source, name), join(target, name));
}
