// Package hooks is layer 3 of Codewhale's authorization: the
// `tool_call_before` hooks of the user's config.toml and of a trusted
// workspace's .codewhale/hooks.toml (docs/codewhale/pipeline.md §3).
//
// It loads hook entries with the byte spans of what it finds wrong
// (load.go, decode.go, validate.go), decides which hooks a call triggers
// (condition.go), runs them (runner.go, background.go) and folds their answers
// into one verdict exactly as Codewhale does (fold.go, before.go).
package hooks
