package hooks

import (
	"fmt"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// MaxProjectFileBytes is the largest hooks.toml Codewhale reads.
const MaxProjectFileBytes = 1 << 20

var settingKeys = []string{"enabled", "default_timeout_secs", "working_dir", "hooks"}

// FromUserConfig loads the [hooks] table of the user's config.toml (nil
// when the file has none) as release r reads it. Config.Rejected means
// Codewhale refuses to start. Problems carry no File: the caller knows it.
func FromUserConfig(hooksTable *tomldoc.TableValue, r release.Release) (Config, []problem.Problem) {
	l := &loader{source: Global, release: r}
	cfg := Config{Enabled: true, Release: r}
	if hooksTable == nil {
		return cfg, nil
	}
	l.unknownKeys(hooksTable, settingKeys, "the [hooks] table")
	cfg.Enabled, _ = l.boolAt(hooksTable, "enabled", true)
	if n, e := l.uintAt(hooksTable, "default_timeout_secs"); e != nil {
		if n == 0 {
			l.report(problem.InvalidValue, problem.Error, e.Value.Span,
				"Codewhale rejects default_timeout_secs = 0 and ignores it: every hook keeps its own timeout_secs")
		}
		cfg.DefaultTimeoutSecs = n
	}
	cfg.WorkingDir, _ = l.stringAt(hooksTable, "working_dir")
	cfg.Hooks = l.hooks(l.arrayAt(hooksTable, "hooks"))
	return l.finish(cfg)
}

// FromProjectFile loads <workspace>/.codewhale/hooks.toml as release r
// reads it. Config.Rejected means Codewhale drops every project hook
// (global hooks still run). Only Hooks is meaningful: the file's own
// settings never apply (see Combine).
func FromProjectFile(doc *tomldoc.Doc, r release.Release) (Config, []problem.Problem) {
	l := &loader{source: Project, release: r}
	cfg := Config{Enabled: true, Release: r}
	if doc == nil {
		return cfg, nil
	}
	if len(doc.Src) > MaxProjectFileBytes {
		return Config{Enabled: true, Rejected: true, Release: r}, []problem.Problem{{
			Code: problem.FileRejected, Severity: problem.Error,
			Message: fmt.Sprintf("hooks.toml is larger than %d bytes: Codewhale ignores it and loads none of the project hooks", MaxProjectFileBytes),
		}}
	}
	l.unknownKeys(doc.Root, settingKeys, "hooks.toml")
	// serde still type-checks the ignored settings.
	_, enabled := l.boolAt(doc.Root, "enabled", true)
	_, timeout := l.uintAt(doc.Root, "default_timeout_secs")
	_, dir := l.stringAt(doc.Root, "working_dir")
	for _, e := range []*tomldoc.Entry{enabled, timeout, dir} {
		if e != nil {
			l.report(problem.UnknownKey, problem.Warning, e.KeySpan, fmt.Sprintf(
				"Codewhale ignores `%s` in a project hooks.toml: only the user's config.toml [hooks] table sets it", e.Key))
		}
	}
	cfg.Hooks = l.hooks(l.arrayAt(doc.Root, "hooks"))
	return l.finish(cfg)
}

func (l *loader) hooks(items []*tomldoc.Value) []Hook {
	var kept []Hook
	for i, item := range items {
		if h, ok := l.decodeHook(item, i); ok {
			kept = append(kept, h)
		}
	}
	return kept
}
