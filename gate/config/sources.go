package config

import (
	"path/filepath"
	"slices"

	"github.com/codewhale-ls/codewhale-ls/gate/repolaw"
)

// Sources are every path whose content, appearance or disappearance can
// change what Load returns for the same options: the files it read, the
// files it looked for and did not find, the config a legacy or overridden
// path shadows, and every place a constitution could appear. A watcher of
// these paths sees every change that matters.
func (s *Snapshot) Sources() []string {
	p := s.Paths
	out := []string{p.Config, p.Permissions, p.Settings, p.Managed, p.Requirements, p.Overlay, p.LegacyOverlay, p.ProjectHooks, p.HookApprovals()}
	if p.CodewhaleDir != "" {
		out = append(out, filepath.Join(p.CodewhaleDir, "config.toml"), filepath.Join(p.CodewhaleDir, "permissions.toml"))
	}
	for _, f := range s.Files {
		out = append(out, f.Path)
	}
	if p.Workspace != "" {
		out = append(out, repolaw.Candidates(p.Workspace)...)
	}
	out = slices.DeleteFunc(out, func(path string) bool { return path == "" || !filepath.IsAbs(path) })
	for i := range out {
		out[i] = filepath.Clean(out[i])
	}
	slices.Sort(out)
	return slices.Compact(out)
}
