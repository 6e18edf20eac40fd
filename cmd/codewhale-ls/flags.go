package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/internal/releasecache"
)

// flagSet is a tiny parser that, unlike package flag, accepts flags after
// positional arguments (`explain bash --command ls`).
type flagSet struct {
	values map[string]string
	bools  map[string]bool
	known  map[string]bool // name → takes a value
	args   []string
}

func parseFlags(args []string, valued []string, booleans []string) (*flagSet, error) {
	fs := &flagSet{values: map[string]string{}, bools: map[string]bool{}, known: map[string]bool{}}
	for _, n := range valued {
		fs.known[n] = true
	}
	for _, n := range booleans {
		fs.known[n] = false
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			fs.args = append(fs.args, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			fs.args = append(fs.args, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takesValue, ok := fs.known[name]
		if !ok {
			return nil, fmt.Errorf("unknown flag %s", a)
		}
		if !takesValue {
			fs.bools[name] = true
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("flag %s needs a value", a)
			}
			i++
			value = args[i]
		}
		fs.values[name] = value
	}
	return fs, nil
}

var commonFlags = []string{"config", "workspace", "mode", "posture", "origin", "codewhale-version"}

// codewhale is the Codewhale release to reproduce, chosen as
// release.Named says: --codewhale-version when given (the CLI has no
// editor option), else the codewhale on the process's PATH, else the
// default. Detection ends by ctx's deadline (the hook's timeout) and never
// runs a codewhale inside workspace ("": the one the flags name) or a git
// work tree (release.Detector.Detect). What a binary printed is remembered
// in the user's cache directory (internal/releasecache), so that each hook
// call, a new process, does not run it again.
func (fs *flagSet) codewhale(ctx context.Context, workspaces ...string) (release.Choice, error) {
	if choice, named, err := release.Named(fs.codewhaleVersion(), nil); named || err != nil {
		return choice, err
	}
	if len(workspaces) == 0 {
		// An unusable workspace flag is reported by loadOptions.
		workspace, _ := fs.workspace()
		workspaces = []string{workspace}
	}
	d := release.Detector{Store: releasecache.User()}
	return d.Detect(ctx, os.Getenv("PATH"), workspaces...), nil
}

// codewhaleVersion is --codewhale-version, nil when not given: an empty
// value given is no release, and an error.
func (fs *flagSet) codewhaleVersion() *string {
	if v, ok := fs.values["codewhale-version"]; ok {
		return &v
	}
	return nil
}

// workspace is --workspace, else the git root of the current directory,
// else the current directory (docs/codewhale/contract.md §2).
func (fs *flagSet) workspace() (string, error) {
	if ws := fs.values["workspace"]; ws != "" {
		return filepath.Abs(ws)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if root := config.GitRoot(cwd); root != "" {
		return root, nil
	}
	return cwd, nil
}

// loadOptions are the options to load the files with, as the release
// against loads them.
func (fs *flagSet) loadOptions(against release.Choice) (config.Options, error) {
	ws, err := fs.workspace()
	if err != nil {
		return config.Options{}, err
	}
	return config.Options{ConfigFlag: fs.values["config"], Workspace: ws, Env: config.OSEnv{}, Release: against.Implementation()}, nil
}

// requestDefaults turns --mode, --posture and --origin into the defaults a
// request's own fields override.
func (fs *flagSet) requestDefaults(workspace string) (gate.Request, error) {
	base := gate.Request{Workspace: workspace}
	if v, ok := fs.values["mode"]; ok {
		m, valid := gate.ParseContractMode(v)
		if !valid {
			return base, fmt.Errorf("--mode must be one of plan, agent, operate, yolo; got %q", v)
		}
		base.Mode = m
	}
	if v, ok := fs.values["posture"]; ok {
		p, valid := gate.ParseContractPosture(v)
		if !valid {
			return base, fmt.Errorf("--posture must be one of ask, auto-review, full-access, never; got %q", v)
		}
		base.Posture = &p
	}
	if v, ok := fs.values["origin"]; ok {
		o, valid := session.ParseOrigin(v)
		if !valid {
			return base, fmt.Errorf("--origin must be one of interactive, background, headless; got %q", v)
		}
		base.Origin = o
	}
	return base, nil
}
