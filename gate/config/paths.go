// Package config loads Codewhale's policy files exactly as Codewhale does and
// freezes them into one immutable Snapshot that every decision reads.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/gitroot"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// Env is the process environment a load sees. Tests give their own.
type Env interface {
	Getenv(key string) string
}

// OSEnv reads the real environment.
type OSEnv struct{}

func (OSEnv) Getenv(key string) string { return os.Getenv(key) }

// MapEnv is a fixed environment.
type MapEnv map[string]string

func (m MapEnv) Getenv(key string) string { return m[key] }

// Options say which files to load.
type Options struct {
	// ConfigFlag is --config (or the initializationOptions config path).
	ConfigFlag string
	// Workspace is the absolute workspace root.
	Workspace string
	Env       Env
	// Buffers are editor contents that stand in for the files at those
	// paths: diagnostics come from the buffer when a file is open.
	Buffers Buffers
	// Release is the Codewhale release whose loaders and gate behaviour
	// the snapshot reproduces (the zero Release is the oldest implemented).
	Release release.Release
	// Kinds, when not nil, are the only kinds of file Load reads: every
	// other file is left untouched (not even looked at) and counts as
	// absent. `check FILE` reads the named files and the files their
	// findings depend on (diagnostics.Input.Only); a snapshot loaded so
	// lints those files and must never decide a call, as its policy lacks
	// the files left out.
	Kinds map[Kind]bool
}

// Buffers maps absolute paths to the text an editor holds for them.
type Buffers map[string][]byte

// read is readRegular with an open buffer standing in for the file's
// contents; what the file is (missing, symlink) still comes from disk,
// except that a buffer for a file not yet saved counts as present.
func (b Buffers) read(path string) ([]byte, bool, error) {
	src, open := b[path]
	if !open {
		return readRegular(path)
	}
	// The buffer stands in for the contents, so only what the file is
	// needs the disk (no read on every keystroke).
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, true, ErrSymlink
	}
	return src, true, nil
}

// Paths are where Codewhale looks for each file (docs/codewhale/contract.md §1).
type Paths struct {
	Home          string // the user's home directory
	CodewhaleDir  string // where settings.toml and our own state live
	Config        string
	ConfigSource  string // which rule chose Config: --config, CODEWHALE_CONFIG_PATH, ...
	Permissions   string
	Settings      string
	Managed       string // default; the managed_config_path key may override
	Requirements  string // default; the requirements_path key may override
	Workspace     string
	Overlay       string // <workspace>/.codewhale/config.toml
	LegacyOverlay string
	ProjectHooks  string
}

// homeDir follows Codewhale: HOME, then USERPROFILE, then HOMEDRIVE+HOMEPATH,
// then the OS lookup.
func homeDir(env Env) string {
	if h := env.Getenv("HOME"); h != "" {
		return h
	}
	if h := env.Getenv("USERPROFILE"); h != "" {
		return h
	}
	if d, p := env.Getenv("HOMEDRIVE"), env.Getenv("HOMEPATH"); d != "" && p != "" {
		return d + p
	}
	h, _ := os.UserHomeDir()
	return h
}

// HomeDir is the user's home directory as ResolvePaths finds it in env
// (nil is the process environment).
func HomeDir(env Env) string {
	if env == nil {
		env = OSEnv{}
	}
	return homeDir(env)
}

func expandTilde(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// ResolvePaths applies Codewhale's config path resolution (docs/codewhale/execpolicy.md
// §1.1): --config > CODEWHALE_CONFIG_PATH > DEEPSEEK_CONFIG_PATH (both must be
// absolute after ~ expansion) > $CODEWHALE_HOME/config.toml >
// ~/.codewhale/config.toml if it exists > ~/.deepseek/config.toml if it
// exists > ~/.codewhale/config.toml.
func ResolvePaths(opts Options) (Paths, error) {
	env := opts.Env
	if env == nil {
		env = OSEnv{}
	}
	home := homeDir(env)
	p := Paths{Home: home, Workspace: opts.Workspace}
	codewhaleHome := env.Getenv("CODEWHALE_HOME")
	switch {
	case opts.ConfigFlag != "":
		p.Config, p.ConfigSource = expandTilde(opts.ConfigFlag, home), "--config"
		if !filepath.IsAbs(p.Config) {
			abs, err := filepath.Abs(p.Config)
			if err != nil {
				return p, fmt.Errorf("--config %q: %w", opts.ConfigFlag, err)
			}
			p.Config = abs
		}
	case env.Getenv("CODEWHALE_CONFIG_PATH") != "":
		if err := absoluteEnvPath(&p, env, "CODEWHALE_CONFIG_PATH", home); err != nil {
			return p, err
		}
	case env.Getenv("DEEPSEEK_CONFIG_PATH") != "":
		if err := absoluteEnvPath(&p, env, "DEEPSEEK_CONFIG_PATH", home); err != nil {
			return p, err
		}
	case codewhaleHome != "":
		p.Config, p.ConfigSource = filepath.Join(expandTilde(codewhaleHome, home), "config.toml"), "CODEWHALE_HOME"
	default:
		primary := filepath.Join(home, ".codewhale", "config.toml")
		legacy := filepath.Join(home, ".deepseek", "config.toml")
		switch {
		case exists(primary):
			p.Config, p.ConfigSource = primary, "~/.codewhale/config.toml"
		case exists(legacy):
			p.Config, p.ConfigSource = legacy, "~/.deepseek/config.toml (legacy)"
		default:
			p.Config, p.ConfigSource = primary, "~/.codewhale/config.toml"
		}
	}
	p.Permissions = filepath.Join(filepath.Dir(p.Config), "permissions.toml")
	p.CodewhaleDir = filepath.Join(home, ".codewhale")
	if codewhaleHome != "" {
		p.CodewhaleDir = expandTilde(codewhaleHome, home)
	}
	p.Settings = filepath.Join(p.CodewhaleDir, "settings.toml")
	p.Managed = "/etc/deepseek/managed_config.toml"
	p.Requirements = "/etc/deepseek/requirements.toml"
	if opts.Workspace != "" {
		p.Overlay = filepath.Join(opts.Workspace, ".codewhale", "config.toml")
		p.LegacyOverlay = filepath.Join(opts.Workspace, ".deepseek", "config.toml")
		p.ProjectHooks = filepath.Join(opts.Workspace, ".codewhale", "hooks.toml")
	}
	return p, nil
}

func absoluteEnvPath(p *Paths, env Env, name, home string) error {
	v := expandTilde(env.Getenv(name), home)
	if !filepath.IsAbs(v) {
		return fmt.Errorf("%s must be an absolute path, got %q", name, env.Getenv(name))
	}
	p.Config, p.ConfigSource = v, name
	return nil
}

// ErrSymlink is why Codewhale refuses a symlinked policy file.
var ErrSymlink = errors.New("must not be a symlink")

// readRegular reads a file the way Codewhale's loaders do: a missing file is
// (nil, nil); a symlink is refused, and so is anything policyfile will not
// read (not a regular file, too large), as Codewhale's loaders refuse a
// file they cannot read.
func readRegular(path string) ([]byte, bool, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, true, ErrSymlink
	}
	b, err := policyfile.Read(path)
	return b, true, err
}

// GitRoot returns the nearest ancestor of dir (itself included) holding a
// .git entry, or "".
func GitRoot(dir string) string { return gitroot.Of(dir) }

// readThrough reads like Codewhale's TUI start-up loader, following
// symlinks, with an open buffer standing in for the contents.
func (b Buffers) readThrough(path string) ([]byte, error) {
	if src, open := b[path]; open {
		return src, nil
	}
	return policyfile.Read(path)
}
