-- The plugin's version: one version for codewhale-ls (buildinfo.SourceVersion), this
-- plugin and the VS Code extension (package.json); editors/version_test.go
-- fails when they drift apart.
return '0.1.0'
