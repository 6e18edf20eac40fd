// The linter's plugins, imported here so that they resolve to this
// folder's node_modules (package.json here says why it is a package of
// its own). ../eslint.config.mjs takes them from this module.
export { default as js } from '@eslint/js';
export { default as tseslint } from 'typescript-eslint';
