package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// TestPostureSources is docs/codewhale/pipeline.md §1.2: the approval control source
// (requirements > project overlay > managed > environment > root config >
// unset), locked = source ≠ unset, and the posture parse(P) / saved posture
// only when unlocked / Ask.
func TestPostureSources(t *testing.T) {
	type files struct {
		user         string
		requirements string // written and named by requirements_path when non-empty
		managed      string // written and named by managed_config_path when non-empty
		overlay      string
		settings     string
		env          MapEnv
	}
	tests := []struct {
		name    string
		files   files
		source  string
		posture session.Posture
		locked  bool
	}{
		{name: "nothing: unset, Ask", source: "unset", posture: session.Ask},
		{name: "root config never", files: files{user: `approval_policy = "never"`}, source: "config.toml", posture: session.Never, locked: true},
		{name: "root config camelCase alias", files: files{user: `approvalPolicy = "auto"`}, source: "config.toml", posture: session.AutoReview, locked: true},
		{name: "root config on-request", files: files{user: `approval_policy = "On-Request"`}, source: "config.toml", posture: session.Ask, locked: true},
		{name: "root config untrusted", files: files{user: `approval_policy = "untrusted"`}, source: "config.toml", posture: session.Ask, locked: true},
		{name: "root config suggest", files: files{user: `approval_policy = " suggest "`}, source: "config.toml", posture: session.Ask, locked: true},
		{name: "env beats root", files: files{user: `approval_policy = "never"`, env: MapEnv{"CODEWHALE_APPROVAL_POLICY": "auto"}},
			source: "environment", posture: session.AutoReview, locked: true},
		{name: "DEEPSEEK_ alias", files: files{env: MapEnv{"DEEPSEEK_APPROVAL_POLICY": "never"}}, source: "environment", posture: session.Never, locked: true},
		{name: "CODEWHALE_ beats DEEPSEEK_", files: files{env: MapEnv{"DEEPSEEK_APPROVAL_POLICY": "never", "CODEWHALE_APPROVAL_POLICY": "auto"}},
			source: "environment", posture: session.AutoReview, locked: true},
		{name: "empty env var is unset", files: files{env: MapEnv{"CODEWHALE_APPROVAL_POLICY": ""}}, source: "unset", posture: session.Ask},
		{name: "managed beats env", files: files{managed: `approval_policy = "never"`, env: MapEnv{"CODEWHALE_APPROVAL_POLICY": "auto"}},
			source: "managed config", posture: session.Never, locked: true},
		{name: "managed may loosen", files: files{user: `approval_policy = "never"`, managed: `approval_policy = "auto"`},
			source: "managed config", posture: session.AutoReview, locked: true},
		{name: "managed without approval: root still controls", files: files{user: `approval_policy = "never"`, managed: `sandbox_mode = "read-only"`},
			source: "config.toml", posture: session.Never, locked: true},
		{name: "unreadable managed: ambiguous, locked", files: files{managed: "approval_policy = \n", settings: `permission_posture = "full-access"`},
			source: "managed config (unreadable)", posture: session.Ask, locked: true},
		{name: "project beats managed", files: files{managed: `approval_policy = "on-request"`, overlay: `approval_policy = "never"`},
			source: "project config .codewhale/config.toml", posture: session.Never, locked: true},
		{name: "project that fails the test does not control", files: files{managed: `approval_policy = "never"`, overlay: `approval_policy = "auto"`},
			source: "managed config", posture: session.Never, locked: true},
		{name: "requirements beat project", files: files{requirements: `allowed_approval_policies = ["never", "on-request"]`, user: `approval_policy = "on-request"`, overlay: `approval_policy = "never"`},
			source: "requirements", posture: session.Never, locked: true},
		{name: "requirements lock even with approval unset; saved posture ignored", files: files{requirements: `allowed_approval_policies = ["never"]`, settings: `permission_posture = "full-access"`},
			source: "requirements", posture: session.Ask, locked: true},
		{name: "requirements with empty list do not control", files: files{requirements: `allowed_approval_policies = []`, user: `approval_policy = "auto"`},
			source: "config.toml", posture: session.AutoReview, locked: true},
		{name: "unparsable requirements control (ambiguous)", files: files{requirements: "allowed_approval_policies = [\n", settings: `permission_posture = "full-access"`},
			source: "requirements", posture: session.Ask, locked: true},
		{name: "ill-typed requirements control (ambiguous)", files: files{requirements: "allowed_approval_policies = [true]\n", settings: `permission_posture = "full-access"`},
			source: "requirements", posture: session.Ask, locked: true},
		{name: "requirements with only sandbox list do not control", files: files{requirements: `allowed_sandbox_modes = ["read-only"]`},
			source: "unset", posture: session.Ask},
		{name: "saved full-access when unlocked", files: files{settings: `permission_posture = "full-access"`},
			source: "settings.toml permission_posture", posture: session.FullAccess},
		{name: "saved auto_review spelling", files: files{settings: `permission_posture = "Auto_Review"`},
			source: "settings.toml permission_posture", posture: session.AutoReview},
		{name: "saved bypass → full-access", files: files{settings: `permission_posture = "bypass"`},
			source: "settings.toml permission_posture", posture: session.FullAccess},
		{name: "saved untrusted → ask", files: files{settings: `permission_posture = "untrusted"`},
			source: "settings.toml permission_posture", posture: session.Ask},
		{name: "saved posture not used when approval is set", files: files{user: `approval_policy = "on-request"`, settings: `permission_posture = "full-access"`},
			source: "config.toml", posture: session.Ask, locked: true},
		{name: "saved posture not used when env sets approval", files: files{env: MapEnv{"CODEWHALE_APPROVAL_POLICY": "never"}, settings: `permission_posture = "full-access"`},
			source: "environment", posture: session.Never, locked: true},
		{name: "unknown saved posture ignored", files: files{settings: `permission_posture = "never"`}, source: "unset", posture: session.Ask},
		{name: "default_mode yolo migrates to full-access", files: files{settings: `default_mode = "yolo"`},
			source: "settings.toml permission_posture", posture: session.FullAccess},
		{name: "default_mode YOLO (case)", files: files{settings: `default_mode = " YOLO "`},
			source: "settings.toml permission_posture", posture: session.FullAccess},
		{name: "default_mode yolo refused when locked", files: files{user: `approval_policy = "on-request"`, settings: `default_mode = "yolo"`},
			source: "config.toml", posture: session.Ask, locked: true},
		{name: "default_mode agent is no posture", files: files{settings: `default_mode = "agent"`}, source: "unset", posture: session.Ask},
		{name: "permission_posture wins over default_mode", files: files{settings: "permission_posture = \"ask\"\ndefault_mode = \"yolo\"\n"},
			source: "settings.toml permission_posture", posture: session.Ask},
		{name: "config yolo = true unlocked → Full Access", files: files{user: "yolo = true"}, source: "unset", posture: session.FullAccess},
		{name: "config yolo = true locked → configured posture", files: files{user: "yolo = true\napproval_policy = \"on-request\"\n"}, source: "config.toml", posture: session.Ask, locked: true},
		{name: "config yolo = false", files: files{user: "yolo = false", settings: `permission_posture = "auto"`}, source: "settings.toml permission_posture", posture: session.AutoReview},
		{name: "CODEWHALE_YOLO=1 unlocked", files: files{env: MapEnv{"CODEWHALE_YOLO": "1"}}, source: "unset", posture: session.FullAccess},
		{name: "DEEPSEEK_YOLO=TRUE unlocked", files: files{env: MapEnv{"DEEPSEEK_YOLO": "TRUE"}}, source: "unset", posture: session.FullAccess},
		{name: "CODEWHALE_YOLO=yes is false", files: files{env: MapEnv{"CODEWHALE_YOLO": "yes"}}, source: "unset", posture: session.Ask},
		{name: "CODEWHALE_YOLO=0 overrides config yolo", files: files{user: "yolo = true", env: MapEnv{"CODEWHALE_YOLO": "0"}}, source: "unset", posture: session.Ask},
		{name: "CODEWHALE_YOLO locked by overlay", files: files{env: MapEnv{"CODEWHALE_YOLO": "true"}, overlay: `approval_policy = "never"`},
			source: "project config .codewhale/config.toml", posture: session.Never, locked: true},
		{name: "CODEWHALE_YOLO locked by requirements", files: files{env: MapEnv{"CODEWHALE_YOLO": "true"}, requirements: `allowed_approval_policies = ["auto"]`},
			source: "requirements", posture: session.Ask, locked: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			user := tc.files.user + "\n"
			if tc.files.requirements != "" {
				user = "requirements_path = " + tomlString(writeFile(t, w.path("etc/requirements.toml"), tc.files.requirements)) + "\n" + user
			}
			if tc.files.managed != "" {
				user = "managed_config_path = " + tomlString(writeFile(t, w.path("etc/managed.toml"), tc.files.managed)) + "\n" + user
			}
			w.userConfig(user)
			if tc.files.overlay != "" {
				w.overlay(tc.files.overlay)
			}
			if tc.files.settings != "" {
				w.settings(tc.files.settings)
			}
			for k, v := range tc.files.env {
				w.vars[k] = v
			}
			s := w.load()
			p := s.Policy
			if p.PostureSource != tc.source || p.Posture != tc.posture || p.Locked != tc.locked {
				t.Errorf("source %q posture %v locked %v, want %q %v %v", p.PostureSource, p.Posture, p.Locked, tc.source, tc.posture, tc.locked)
			}
			if strings.HasPrefix(tc.name, "unreadable") || strings.Contains(tc.name, "(ambiguous)") {
				return // a broken managed file is reported, not asserted here
			}
			if len(s.Fatal()) != 0 {
				t.Errorf("fatal: %q", s.Fatal())
			}
		})
	}
}

// TestEnvironmentOverrides is docs/codewhale/pipeline.md §1.1 step 3.
func TestEnvironmentOverrides(t *testing.T) {
	truthiness := []struct {
		v    string
		want bool
	}{
		{"1", true}, {"true", true}, {"TRUE", true}, {"True", true}, {"tRuE", true},
		{"0", false}, {"false", false}, {"yes", false}, {"on", false}, {"2", false}, {" true", false}, {"true ", false}, {"11", false}, {"y", false},
	}
	for _, name := range []string{"CODEWHALE_ALLOW_SHELL", "DEEPSEEK_ALLOW_SHELL"} {
		for _, tc := range truthiness {
			for _, user := range []string{"", "allow_shell = true", "allow_shell = false"} {
				w := newWorld(t)
				w.userConfig(user)
				w.vars[name] = tc.v
				p := w.load().Policy
				if !p.AllowShell.Set || p.AllowShell.Value != tc.want || p.AllowShell.Source != name {
					t.Errorf("%s=%q over %q: allow_shell %+v, want %v from %s", name, tc.v, user, p.AllowShell, tc.want, name)
				}
			}
		}
	}
	t.Run("CODEWHALE_ALLOW_SHELL beats DEEPSEEK_ALLOW_SHELL", func(t *testing.T) {
		w := newWorld(t)
		w.vars["CODEWHALE_ALLOW_SHELL"] = "false"
		w.vars["DEEPSEEK_ALLOW_SHELL"] = "true"
		if p := w.load().Policy; p.AllowShell.Value || p.AllowShell.Source != "CODEWHALE_ALLOW_SHELL" {
			t.Errorf("allow_shell %+v", p.AllowShell)
		}
	})
	t.Run("sandbox mode env and alias", func(t *testing.T) {
		for _, tc := range []struct {
			env  MapEnv
			want string
			src  string
		}{
			{MapEnv{"CODEWHALE_SANDBOX_MODE": "read-only"}, "read-only", "CODEWHALE_SANDBOX_MODE"},
			{MapEnv{"DEEPSEEK_SANDBOX_MODE": "workspace-write"}, "workspace-write", "DEEPSEEK_SANDBOX_MODE"},
			{MapEnv{"DEEPSEEK_SANDBOX_MODE": "workspace-write", "CODEWHALE_SANDBOX_MODE": "read-only"}, "read-only", "CODEWHALE_SANDBOX_MODE"},
		} {
			w := newWorld(t)
			w.userConfig(`sandbox_mode = "danger-full-access"`)
			for k, v := range tc.env {
				w.vars[k] = v
			}
			p := w.load().Policy
			if p.SandboxMode.Value != tc.want || p.SandboxMode.Source != tc.src {
				t.Errorf("%v: sandbox %+v", tc.env, p.SandboxMode)
			}
		}
	})
	t.Run("env approval is validated", func(t *testing.T) {
		w := newWorld(t)
		w.vars["CODEWHALE_APPROVAL_POLICY"] = "full-access"
		if s := w.load(); len(s.Fatal()) == 0 {
			t.Error("CODEWHALE_APPROVAL_POLICY=full-access must stop Codewhale")
		}
	})
}

// TestWorkspaceEntryShell is docs/codewhale/pipeline.md §1.1 step 7: the user's
// [workspace."<abs>"] / [projects."<abs>"] allow_shell.
func TestWorkspaceEntryShell(t *testing.T) {
	tests := []struct {
		name  string
		user  func(w *world) string
		env   MapEnv
		shell string
	}{
		{name: "workspace entry false", user: func(w *world) string {
			return "allow_shell = true\n[workspace." + tomlString(w.ws) + "]\nallow_shell = false\n"
		}, shell: "false"},
		{name: "legacy projects entry true", user: func(w *world) string {
			return "allow_shell = false\n[projects." + tomlString(w.ws) + "]\nallow_shell = true\n"
		}, shell: "true"},
		{name: "tilde key", user: func(w *world) string {
			rel, _ := filepath.Rel(w.home, w.ws)
			return "[workspace." + tomlString("~/"+filepath.ToSlash(rel)) + "]\nallow_shell = false\n"
		}, shell: "false"},
		{name: "other path ignored", user: func(w *world) string {
			return "[workspace." + tomlString(w.ws+"-other") + "]\nallow_shell = false\n"
		}, shell: "unset"},
		{name: "env beats it", user: func(w *world) string {
			return "[workspace." + tomlString(w.ws) + "]\nallow_shell = false\n"
		}, env: MapEnv{"CODEWHALE_ALLOW_SHELL": "1"}, shell: "true"},
		{name: "skipped when the config sets managed_config_path", user: func(w *world) string {
			return "managed_config_path = " + tomlString(w.path("none/managed.toml")) + "\n[workspace." + tomlString(w.ws) + "]\nallow_shell = false\n"
		}, shell: "unset"},
		{name: "skipped when the config sets requirements_path", user: func(w *world) string {
			return "requirements_path = " + tomlString(w.path("none/req.toml")) + "\n[projects." + tomlString(w.ws) + "]\nallow_shell = false\n"
		}, shell: "unset"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			// the workspace lives under home so that ~ keys can name it
			w.ws = filepath.Join(w.home, "src", "proj")
			mkdir(t, w.ws)
			w.userConfig(tc.user(w))
			for k, v := range tc.env {
				w.vars[k] = v
			}
			s := w.load()
			if got := shellString(s.Policy.AllowShell); got != tc.shell {
				t.Errorf("allow_shell = %s, want %s", got, tc.shell)
			}
			if len(s.Fatal()) != 0 {
				t.Errorf("fatal %q", s.Fatal())
			}
		})
	}
}

// TestSettingsFileLocation: settings.toml is read from ~/.codewhale (docs/codewhale/contract.md §1).
func TestSettingsFileLocation(t *testing.T) {
	w := newWorld(t)
	writeFile(t, filepath.Join(w.home, ".deepseek", "settings.toml"), `permission_posture = "full-access"`)
	if p := w.load().Policy; p.Posture != session.Ask {
		t.Errorf("posture %v read from the wrong settings file", p.Posture)
	}
	w.settings(`permission_posture = "full-access"`)
	s := w.load()
	if s.Policy.Posture != session.FullAccess || s.File(KindSettings) == nil {
		t.Errorf("posture %v", s.Policy.Posture)
	}
	if _, err := os.Stat(s.Paths.Settings); err != nil {
		t.Error(err)
	}
}
