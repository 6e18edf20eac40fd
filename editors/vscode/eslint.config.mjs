// ESLint's recommended rules and typescript-eslint's over the extension's
// sources, tests and scripts: npm run lint (editors/vscode_test.go runs it,
// so CI does). The plugins come from lint/, a package of its own
// (lint/package.json says why).
import { js, tseslint } from './lint/index.mjs';

export default tseslint.config(
  { ignores: ['node_modules/', 'lint/node_modules/', 'out/', 'out-test/', '.out-test-*/', 'dist/', 'schemas/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    // The card's test looks for the characters a card must never show
    // raw, C0 controls among them: its pattern names them on purpose.
    files: ['test/card.test.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // The build scripts and these configs run under Node.
    files: ['**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly' } },
  },
);
