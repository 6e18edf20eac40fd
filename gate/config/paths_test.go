package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolvePaths pins the active config resolution of docs/codewhale/execpolicy.md §1.1
// (and docs/codewhale/contract.md §1): --config > CODEWHALE_CONFIG_PATH >
// DEEPSEEK_CONFIG_PATH (absolute after ~ expansion, else error) >
// $CODEWHALE_HOME/config.toml > ~/.codewhale/config.toml if it exists >
// ~/.deepseek/config.toml if it exists > ~/.codewhale/config.toml, and that
// permissions.toml is always the sibling of the chosen config.
func TestResolvePaths(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	primary := filepath.Join(home, ".codewhale", "config.toml")
	legacy := filepath.Join(home, ".deepseek", "config.toml")
	tests := []struct {
		name     string
		flag     string
		env      MapEnv
		files    []string // created before resolving
		want     string   // the active config ("" when an error is expected)
		source   string
		errMatch string
	}{
		{name: "nothing exists: ~/.codewhale", env: MapEnv{}, want: primary, source: "~/.codewhale/config.toml"},
		{name: "only legacy exists", files: []string{legacy}, want: legacy, source: "~/.deepseek/config.toml (legacy)"},
		{name: "both exist: primary", files: []string{primary, legacy}, want: primary, source: "~/.codewhale/config.toml"},
		{name: "only primary exists", files: []string{primary}, want: primary, source: "~/.codewhale/config.toml"},
		{name: "CODEWHALE_HOME beats existing ~/.codewhale", env: MapEnv{"CODEWHALE_HOME": "/opt/cw"}, files: []string{primary, legacy},
			want: "/opt/cw/config.toml", source: "CODEWHALE_HOME"},
		{name: "CODEWHALE_HOME with ~", env: MapEnv{"CODEWHALE_HOME": "~/cwhome"}, want: filepath.Join(home, "cwhome", "config.toml"), source: "CODEWHALE_HOME"},
		{name: "DEEPSEEK_CONFIG_PATH beats CODEWHALE_HOME", env: MapEnv{"DEEPSEEK_CONFIG_PATH": "/d/config.toml", "CODEWHALE_HOME": "/opt/cw"},
			want: "/d/config.toml", source: "DEEPSEEK_CONFIG_PATH"},
		{name: "CODEWHALE_CONFIG_PATH beats DEEPSEEK_CONFIG_PATH", env: MapEnv{"CODEWHALE_CONFIG_PATH": "/c/config.toml", "DEEPSEEK_CONFIG_PATH": "/d/config.toml", "CODEWHALE_HOME": "/opt/cw"},
			want: "/c/config.toml", source: "CODEWHALE_CONFIG_PATH"},
		{name: "--config beats everything", flag: "/f/my.toml", env: MapEnv{"CODEWHALE_CONFIG_PATH": "/c/config.toml", "DEEPSEEK_CONFIG_PATH": "/d/config.toml", "CODEWHALE_HOME": "/opt/cw"},
			files: []string{primary}, want: "/f/my.toml", source: "--config"},
		{name: "--config with ~", flag: "~/alt/c.toml", want: filepath.Join(home, "alt", "c.toml"), source: "--config"},
		{name: "--config relative is made absolute", flag: "rel/c.toml", want: filepath.Join(cwd, "rel", "c.toml"), source: "--config"},
		{name: "CODEWHALE_CONFIG_PATH with ~ expands", env: MapEnv{"CODEWHALE_CONFIG_PATH": "~/x/config.toml"}, want: filepath.Join(home, "x", "config.toml"), source: "CODEWHALE_CONFIG_PATH"},
		{name: "DEEPSEEK_CONFIG_PATH with ~ expands", env: MapEnv{"DEEPSEEK_CONFIG_PATH": "~/y.toml"}, want: filepath.Join(home, "y.toml"), source: "DEEPSEEK_CONFIG_PATH"},
		{name: "CODEWHALE_CONFIG_PATH relative is an error", env: MapEnv{"CODEWHALE_CONFIG_PATH": "x/config.toml"}, errMatch: "CODEWHALE_CONFIG_PATH must be an absolute path"},
		{name: "CODEWHALE_CONFIG_PATH relative errors even if DEEPSEEK_CONFIG_PATH is fine", env: MapEnv{"CODEWHALE_CONFIG_PATH": "config.toml", "DEEPSEEK_CONFIG_PATH": "/d/config.toml"}, errMatch: "CODEWHALE_CONFIG_PATH"},
		{name: "DEEPSEEK_CONFIG_PATH relative is an error", env: MapEnv{"DEEPSEEK_CONFIG_PATH": "./config.toml"}, errMatch: "DEEPSEEK_CONFIG_PATH must be an absolute path"},
		{name: "~user is not expanded", env: MapEnv{"CODEWHALE_CONFIG_PATH": "~other/config.toml"}, errMatch: "must be an absolute path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(root)
			mkdir(t, home)
			for _, f := range tc.files {
				writeFile(t, f, "")
			}
			env := MapEnv{"HOME": home}
			for k, v := range tc.env {
				env[k] = v
			}
			p, err := ResolvePaths(Options{ConfigFlag: tc.flag, Env: env})
			if tc.errMatch != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errMatch) {
					t.Fatalf("err = %v, want one containing %q (config %q)", err, tc.errMatch, p.Config)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Config != tc.want || p.ConfigSource != tc.source {
				t.Errorf("config = %q (%s), want %q (%s)", p.Config, p.ConfigSource, tc.want, tc.source)
			}
			if want := filepath.Join(filepath.Dir(tc.want), "permissions.toml"); p.Permissions != want {
				t.Errorf("permissions = %q, want sibling %q", p.Permissions, want)
			}
			if p.Home != home {
				t.Errorf("home = %q, want %q", p.Home, home)
			}
		})
	}
}

// TestHomeFallbacks: Home = HOME, then USERPROFILE, then HOMEDRIVE+HOMEPATH
// (docs/codewhale/execpolicy.md §1.1).
func TestHomeFallbacks(t *testing.T) {
	tests := []struct {
		env  MapEnv
		want string
	}{
		{MapEnv{"HOME": "/h", "USERPROFILE": "/u", "HOMEDRIVE": "C:", "HOMEPATH": `\p`}, "/h"},
		{MapEnv{"USERPROFILE": "/u", "HOMEDRIVE": "C:", "HOMEPATH": `\p`}, "/u"},
		{MapEnv{"HOMEDRIVE": "C:", "HOMEPATH": `\Users\p`}, `C:\Users\p`},
		{MapEnv{"HOME": "", "USERPROFILE": "/u"}, "/u"},
	}
	for _, tc := range tests {
		p, err := ResolvePaths(Options{Env: tc.env, ConfigFlag: "/abs/config.toml"})
		if err != nil {
			t.Fatal(err)
		}
		if p.Home != tc.want {
			t.Errorf("env %v: home = %q, want %q", tc.env, p.Home, tc.want)
		}
	}
	// The home directory found by a fallback is the one ~ expands to.
	p, err := ResolvePaths(Options{Env: MapEnv{"USERPROFILE": "/u", "CODEWHALE_CONFIG_PATH": "~/c.toml"}})
	if err != nil || p.Config != filepath.Join("/u", "c.toml") {
		t.Errorf("USERPROFILE ~ expansion: %q, %v", p.Config, err)
	}
}

// TestResolvePathsDerived: the other files of docs/codewhale/contract.md §1.
func TestResolvePathsDerived(t *testing.T) {
	p, err := ResolvePaths(Options{Env: MapEnv{"HOME": "/h", "CODEWHALE_CONFIG_PATH": "/etc/cw/config.toml"}, Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	want := Paths{
		Home: "/h", CodewhaleDir: "/h/.codewhale", Config: "/etc/cw/config.toml", ConfigSource: "CODEWHALE_CONFIG_PATH",
		Permissions: "/etc/cw/permissions.toml", Settings: "/h/.codewhale/settings.toml",
		Managed: "/etc/deepseek/managed_config.toml", Requirements: "/etc/deepseek/requirements.toml",
		Workspace: "/w", Overlay: "/w/.codewhale/config.toml", LegacyOverlay: "/w/.deepseek/config.toml",
		ProjectHooks: "/w/.codewhale/hooks.toml",
	}
	if p != want {
		t.Errorf("paths = %+v\nwant    %+v", p, want)
	}
}

// TestLoadBadEnvPathIsFatal: the resolution error stops Codewhale.
func TestLoadBadEnvPathIsFatal(t *testing.T) {
	w := newWorld(t)
	w.userConfig(`approval_policy = "never"`)
	w.vars["DEEPSEEK_CONFIG_PATH"] = "relative.toml"
	s := w.load()
	if len(s.Fatal()) == 0 || !strings.Contains(s.Fatal()[0], "DEEPSEEK_CONFIG_PATH") {
		t.Fatalf("fatal = %q", s.Fatal())
	}
	if s.Engine() == nil {
		t.Fatal("engine must not be nil")
	}
}
