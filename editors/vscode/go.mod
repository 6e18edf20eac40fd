// editors/vscode holds no Go code. This file makes it a module of its own,
// so that the main module's ./... (go vet, go test, go build) never walks
// node_modules, where a package may ship .go files of its own.
module github.com/codewhale-ls/codewhale-ls/editors/vscode

go 1.26
