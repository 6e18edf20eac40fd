package diagnostics

import (
	"path/filepath"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
)

// KindOf says which Codewhale file path is, for the paths a snapshot
// resolved; ok is false for a file Codewhale does not read.
func KindOf(p config.Paths, path string) (config.Kind, bool) {
	switch {
	case path == p.Config:
		return config.KindUserConfig, true
	case path == p.Permissions:
		return config.KindPermissions, true
	case path == p.Overlay, path == p.LegacyOverlay:
		return config.KindOverlay, true
	case path == p.ProjectHooks:
		return config.KindProjectHooks, true
	case path == p.Settings:
		return config.KindSettings, true
	case filepath.Base(path) == "constitution.json" && filepath.Base(filepath.Dir(path)) == ".codewhale":
		return config.KindConstitution, true
	}
	return "", false
}
