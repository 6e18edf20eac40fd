package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

func shellString(b BoolSetting) string {
	switch {
	case !b.Set:
		return "unset"
	case b.Value:
		return "true"
	}
	return "false"
}

// TestOverlayLiveVectors is docs/codewhale/pipeline.md §1.5 "Live TUI overlay tests" plus
// the rows of the library-merge table that the live overlay shares
// (§1.3 rules; max_subagents, model and provider are not authorization
// settings, so for them only "no effect on approval/sandbox/shell and the
// right diagnostics" is asserted).
func TestOverlayLiveVectors(t *testing.T) {
	tests := []struct {
		name     string
		user     string // user config.toml
		settings string // ~/.codewhale/settings.toml ("" = none)
		overlay  string // testdata fixture
		approval string // effective approval_policy
		sandbox  string
		shell    string
		posture  session.Posture
		locked   bool
		problems []wp
	}{
		{name: "default, never/read-only", overlay: "overlay_tightens_to_never_read_only.toml",
			approval: "never", sandbox: "read-only", shell: "unset", posture: session.Never, locked: true},
		{name: "default, auto/danger-full-access/model: denied per key", overlay: "overlay_loosens_approval_and_sandbox_keeps_model.toml",
			approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask,
			problems: []wp{{"CW100", `"auto"`}, {"CW100", `"danger-full-access"`}}},
		{name: "user never, project auto", user: `approval_policy = "never"`, overlay: "overlay_loosens_approval.toml",
			approval: "never", sandbox: "unset", shell: "unset", posture: session.Never, locked: true,
			problems: []wp{{"CW100", `"auto"`}}},
		{name: "never/read-only, project on-request/workspace-write", user: "approval_policy = \"never\"\nsandbox_mode = \"read-only\"\n",
			overlay: "overlay_on_request_workspace_write.toml", approval: "never", sandbox: "read-only", shell: "unset", posture: session.Never, locked: true,
			problems: []wp{{"CW100", `"on-request"`}, {"CW100", `"workspace-write"`}}},
		{name: "on-request/workspace-write, project never/read-only", user: "approval_policy = \"on-request\"\nsandbox_mode = \"workspace-write\"\n",
			overlay: "overlay_tightens_to_never_read_only.toml", approval: "never", sandbox: "read-only", shell: "unset", posture: session.Never, locked: true},
		// library merge row 2 (coincides with the live rules)
		{name: "auto/workspace-write, project never/read-only", user: "approval_policy = \"auto\"\nsandbox_mode = \"workspace-write\"\n",
			overlay: "overlay_tightens_to_never_read_only.toml", approval: "never", sandbox: "read-only", shell: "unset", posture: session.Never, locked: true},
		// library merge row 3
		{name: "unset/unset, project on-request/workspace-write", overlay: "overlay_on_request_workspace_write.toml",
			approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask,
			problems: []wp{{"CW100", `"on-request"`}, {"CW100", `"workspace-write"`}}},
		{name: "unset + saved full-access, project on-request: tightens to Ask and locks", settings: `permission_posture = "full-access"`,
			overlay: "overlay_on_request.toml", approval: "on-request", sandbox: "unset", shell: "unset", posture: session.Ask, locked: true},
		{name: "default, max_subagents=4 allow_shell=false", overlay: "overlay_max_subagents_shell_off.toml",
			approval: "unset", sandbox: "unset", shell: "false", posture: session.Ask},
		{name: "user allow_shell=false, project true", user: "allow_shell = false", overlay: "overlay_allow_shell_true_ignored.toml",
			approval: "unset", sandbox: "unset", shell: "false", posture: session.Ask, problems: []wp{{"CW100", "true"}}},
		{name: "user allow_shell=true, project true stays true (no loosening, still warned)", user: "allow_shell = true", overlay: "overlay_allow_shell_true_ignored.toml",
			approval: "unset", sandbox: "unset", shell: "true", posture: session.Ask, problems: []wp{{"CW100", "true"}}},
		{name: "user allow_shell=true, project false", user: "allow_shell = true", overlay: "overlay_max_subagents_shell_off.toml",
			approval: "unset", sandbox: "unset", shell: "false", posture: session.Ask},
		{name: "default, max_subagents=500", overlay: "overlay_max_subagents_500.toml", approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask},
		{name: "default, max_subagents=-3", overlay: "overlay_max_subagents_negative.toml", approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask,
			problems: []wp{{"CW100", "-3"}}},
		{name: "provider=codewhale, project not TOML: unchanged", user: `provider = "codewhale"`, overlay: "overlay_not_toml.toml",
			approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask,
			problems: []wp{{"CW001", "i"}, {"CW103", ""}}}, // "this <is": a key needs "="
		{name: "provider+model, project empty provider/model: unchanged", user: "provider = \"codewhale\"\nmodel = \"deepseek-v4-pro\"\n",
			overlay: "overlay_empty_provider_and_model.toml", approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask,
			problems: []wp{{"CW101", "provider"}, {"CW100", `""`}}},
		{name: "credentials and endpoints never applied", user: "api_key = \"USER_KEY\"\nbase_url = \"https://api.deepseek.com\"\nmcp_oauth_callback_port = 1455\n",
			overlay: "overlay_credentials_never_applied.toml", approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask,
			problems: []wp{{"CW101", "api_key"}, {"CW101", "base_url"}, {"CW101", "provider"}, {"CW101", "mcp_config_path"},
				{"CW101", "mcp_oauth_callback_port"}, {"CW101", "mcp_oauth_callback_url"}, {"CW101", "instructions"}}},
		{name: "default, provider nvidia-nim + model", overlay: "overlay_provider_never_applied.toml",
			approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask, problems: []wp{{"CW101", "provider"}}},
		// §1.3 "any other key ... silently ignored": CW102 on each key, and
		// none of them (yolo, approvalPolicy, hooks, ...) has an effect.
		{name: "silently ignored keys", overlay: "overlay_silently_ignored_keys.toml",
			approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask,
			problems: []wp{{"CW102", "yolo"}, {"CW102", "telemetry"}, {"CW102", "telemetry_endpoint"}, {"CW102", "approvalPolicy"},
				{"CW102", "auto_review"}, {"CW102", "hooks"}, {"CW102", "network"}, {"CW102", "hotbar"}, {"CW102", "skills"},
				{"CW102", "providers"}, {"CW102", "tools"}}},
		// §1.3 table: non-string approval/sandbox and non-bool allow_shell
		// are dropped silently by Codewhale; codewhale-ls says so (CW100).
		{name: "wrong types are silent", overlay: "overlay_non_string_values_silent.toml",
			approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask,
			problems: []wp{{"CW100", "2"}, {"CW100", `["read-only"]`}, {"CW100", `"false"`}, {"CW100", "7"}}},
		// §1.5 loader vector: any string loads, the rank test rejects it.
		{name: "unless-trusted loads but does not rank", overlay: "overlay_unless_trusted_parses.toml",
			approval: "unset", sandbox: "unset", shell: "unset", posture: session.Ask, problems: []wp{{"CW100", `"unless-trusted"`}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			if tc.user != "" {
				w.userConfig(tc.user)
			}
			if tc.settings != "" {
				w.settings(tc.settings)
			}
			w.overlay(fixture(t, tc.overlay))
			s := w.load()
			p := s.Policy
			if len(s.Fatal()) != 0 {
				t.Fatalf("fatal: %q", s.Fatal())
			}
			if got := settingString(p.ApprovalPolicy); got != tc.approval {
				t.Errorf("approval = %q, want %q", got, tc.approval)
			}
			if got := settingString(p.SandboxMode); got != tc.sandbox {
				t.Errorf("sandbox = %q, want %q", got, tc.sandbox)
			}
			if got := shellString(p.AllowShell); got != tc.shell {
				t.Errorf("allow_shell = %q, want %q", got, tc.shell)
			}
			if p.Posture != tc.posture || p.Locked != tc.locked {
				t.Errorf("posture = %v locked=%v (%s), want %v locked=%v", p.Posture, p.Locked, p.PostureSource, tc.posture, tc.locked)
			}
			checkProblems(t, s.File(KindOverlay), tc.problems)
		})
	}
}

// TestOverlayDerivedVectors is the "Derived" table of docs/codewhale/pipeline.md §1.5.
func TestOverlayDerivedVectors(t *testing.T) {
	any := []struct{ user, settings string }{
		{"", ""}, {`approval_policy = "auto"`, ""}, {`approval_policy = "never"`, ""}, {`approval_policy = "on-request"`, ""},
		{"", `permission_posture = "full-access"`}, {"", `permission_posture = "ask"`},
	}
	type row struct {
		name     string
		user     string
		settings string
		env      MapEnv
		key      string
		value    string
		applied  bool
	}
	rows := []row{
		{name: "unset: never", key: "approval_policy", value: "never", applied: true},
		{name: "unset: NEVER", key: "approval_policy", value: "NEVER", applied: true},
		{name: "unset: ' deny '", key: "approval_policy", value: " deny ", applied: true},
		{name: "unset: denied", key: "approval_policy", value: "denied", applied: true},
		{name: "unset: on-request", key: "approval_policy", value: "on-request"},
		{name: "unset: untrusted", key: "approval_policy", value: "untrusted"},
		{name: "unset: auto", key: "approval_policy", value: "auto"},
		{name: "saved ask: untrusted", settings: `permission_posture = "ask"`, key: "approval_policy", value: "untrusted", applied: true},
		{name: "saved auto-review: auto", settings: `permission_posture = "auto-review"`, key: "approval_policy", value: "auto", applied: true},
		{name: "saved full-access: auto", settings: `permission_posture = "full-access"`, key: "approval_policy", value: "auto", applied: true},
		{name: "saved ask: auto", settings: `permission_posture = "ask"`, key: "approval_policy", value: "auto"},
		{name: "user untrusted: on-request", user: `approval_policy = "untrusted"`, key: "approval_policy", value: "on-request", applied: true},
		{name: "user on-request: auto", user: `approval_policy = "on-request"`, key: "approval_policy", value: "auto"},
		{name: "user suggest: Untrusted", user: `approval_policy = "suggest"`, key: "approval_policy", value: "Untrusted", applied: true},
		{name: "user auto: suggested", user: `approval_policy = "auto"`, key: "approval_policy", value: "suggested", applied: true},
		// The baseline is the approval after the environment (§1.1 step 3).
		{name: "env never: on-request", env: MapEnv{"CODEWHALE_APPROVAL_POLICY": "never"}, key: "approval_policy", value: "on-request"},
		{name: "env auto: on-request", env: MapEnv{"DEEPSEEK_APPROVAL_POLICY": "auto"}, key: "approval_policy", value: "on-request", applied: true},
		// The saved posture is a baseline only while the config leaves approval unset.
		{name: "user never beats saved full-access", user: `approval_policy = "never"`, settings: `permission_posture = "full-access"`, key: "approval_policy", value: "auto"},

		{name: "sandbox unset: workspace-write", key: "sandbox_mode", value: "workspace-write"},
		{name: "sandbox unset: read-only", key: "sandbox_mode", value: "read-only", applied: true},
		{name: "sandbox unset: READ-ONLY", key: "sandbox_mode", value: " READ-ONLY ", applied: true},
		{name: "sandbox workspace-write: read-only", user: `sandbox_mode = "workspace-write"`, key: "sandbox_mode", value: "read-only", applied: true},
		{name: "sandbox read-only: workspace-write", user: `sandbox_mode = "read-only"`, key: "sandbox_mode", value: "workspace-write"},
		{name: "sandbox read-only: read-only", user: `sandbox_mode = "read-only"`, key: "sandbox_mode", value: "read-only", applied: true},
		{name: "sandbox danger-full-access: workspace-write", user: `sandbox_mode = "danger-full-access"`, key: "sandbox_mode", value: "workspace-write", applied: true},
		{name: "sandbox external-sandbox: danger-full-access", user: `sandbox_mode = "external-sandbox"`, key: "sandbox_mode", value: "danger-full-access", applied: true},
		{name: "sandbox danger-full-access: external-sandbox", user: `sandbox_mode = "danger-full-access"`, key: "sandbox_mode", value: "external-sandbox"},
		{name: "sandbox unset: external-sandbox", key: "sandbox_mode", value: "external-sandbox"},
		{name: "sandbox external-sandbox: External-Sandbox", user: `sandbox_mode = "external-sandbox"`, key: "sandbox_mode", value: " External-Sandbox ", applied: true},
		{name: "sandbox read-only: external-sandbox", user: `sandbox_mode = "read-only"`, key: "sandbox_mode", value: "external-sandbox"},
		{name: "sandbox env read-only: workspace-write", env: MapEnv{"CODEWHALE_SANDBOX_MODE": "read-only"}, key: "sandbox_mode", value: "workspace-write"},
		// No saved-posture fallback for the sandbox baseline.
		{name: "sandbox unset + saved ask: workspace-write", settings: `permission_posture = "ask"`, key: "sandbox_mode", value: "workspace-write"},
	}
	for _, v := range []string{"full-access", "bypass", "yolo", "ask", "auto-review", "unless-trusted"} {
		for _, b := range any {
			rows = append(rows, row{name: "any (" + b.user + b.settings + "): " + v, user: b.user, settings: b.settings, key: "approval_policy", value: v})
		}
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			if tc.user != "" {
				w.userConfig(tc.user)
			}
			if tc.settings != "" {
				w.settings(tc.settings)
			}
			for k, v := range tc.env {
				w.vars[k] = v
			}
			valueText := tomlString(tc.value)
			w.overlay(tc.key + " = " + valueText + "\n")
			s := w.load()
			if len(s.Fatal()) != 0 {
				t.Fatalf("fatal: %q (an injected value is never re-validated)", s.Fatal())
			}
			p := s.Policy
			got, applied := p.ApprovalPolicy, p.Overlay.ApprovalPolicy.Set
			if tc.key == "sandbox_mode" {
				got, applied = p.SandboxMode, p.Overlay.SandboxMode.Set
			}
			if applied != tc.applied {
				t.Fatalf("applied = %v, want %v (effective %q from %s)", applied, tc.applied, got.Value, got.Source)
			}
			if tc.applied {
				// stored verbatim, case and spaces preserved
				if got.Value != tc.value || got.Source != "project config" {
					t.Errorf("effective = %q from %s, want %q from project config", got.Value, got.Source, tc.value)
				}
				checkProblems(t, s.File(KindOverlay), nil)
				if tc.key == "approval_policy" {
					want, _ := session.ParsePosture(tc.value)
					if p.Posture != want || !p.Locked || !strings.HasPrefix(p.PostureSource, "project config") {
						t.Errorf("posture = %v locked=%v source %q, want %v locked by the project config", p.Posture, p.Locked, p.PostureSource, want)
					}
				}
				return
			}
			if got.Source == "project config" {
				t.Errorf("effective %q comes from the project config", got.Value)
			}
			checkProblems(t, s.File(KindOverlay), []wp{{"CW100", valueText}})
		})
	}
}

// Values of the wrong type, empty strings and max_subagents ≤ 0 are
// dropped by Codewhale without a word (§1.3): a restriction written so is
// not in effect, and CW100 says so on the value.
func TestOverlayValuesCodewhaleIgnores(t *testing.T) {
	for _, line := range []string{
		`allow_shell = "false"`, `allow_shell = 0`,
		`approval_policy = ""`, `approval_policy = 2`, `sandbox_mode = ["read-only"]`,
		`max_subagents = 0`, `max_subagents = "4"`, `model = ""`, `notes_path = false`,
	} {
		t.Run(line, func(t *testing.T) {
			w := newWorld(t)
			w.overlay(line + "\n")
			s := w.load()
			value := strings.TrimSpace(line[strings.Index(line, "=")+1:])
			checkProblems(t, s.File(KindOverlay), []wp{{"CW100", value}})
			if ov := s.Policy.Overlay; ov.ShellOff || ov.ApprovalPolicy.Set || ov.SandboxMode.Set {
				t.Errorf("applied: %+v", ov)
			}
		})
	}
	for _, line := range []string{"allow_shell = false", `model = "m"`, "max_subagents = 3"} {
		w := newWorld(t)
		w.overlay(line + "\n")
		checkProblems(t, w.load().File(KindOverlay), nil)
	}
}

// TestOverlayFileHandling: §1.3 file handling and §1.1 step 8.
func TestOverlayFileHandling(t *testing.T) {
	never := "approval_policy = \"never\"\n"
	t.Run("symlinked primary is skipped entirely, no fallback to .deepseek", func(t *testing.T) {
		w := newWorld(t)
		target := writeFile(t, w.path("elsewhere/config.toml"), never)
		mkdir(t, filepath.Join(w.ws, ".codewhale"))
		if err := os.Symlink(target, filepath.Join(w.ws, ".codewhale", "config.toml")); err != nil {
			t.Skip(err)
		}
		writeFile(t, filepath.Join(w.ws, ".deepseek", "config.toml"), never)
		s := w.load()
		if s.Policy.ApprovalPolicy.Set || s.Policy.Overlay.Disabled == "" {
			t.Fatalf("approval %+v, disabled %q: the symlinked overlay must be skipped", s.Policy.ApprovalPolicy, s.Policy.Overlay.Disabled)
		}
		f := s.File(KindOverlay)
		if f == nil || f.State != Invalid || f.Path != filepath.Join(w.ws, ".codewhale", "config.toml") {
			t.Fatalf("overlay file = %+v", f)
		}
		checkProblems(t, f, []wp{{"CW103", ""}})
		if len(s.Fatal()) != 0 {
			t.Errorf("a skipped overlay is not fatal: %q", s.Fatal())
		}
	})
	t.Run("non-regular primary: legacy .deepseek used", func(t *testing.T) {
		w := newWorld(t)
		mkdir(t, filepath.Join(w.ws, ".codewhale", "config.toml")) // a directory
		legacy := writeFile(t, filepath.Join(w.ws, ".deepseek", "config.toml"), never)
		s := w.load()
		if got := settingString(s.Policy.ApprovalPolicy); got != "never" || s.Policy.Overlay.Path != legacy {
			t.Fatalf("approval %q from %q, want never from %q", got, s.Policy.Overlay.Path, legacy)
		}
		f := s.File(KindOverlay)
		if f == nil || f.Path != legacy || f.State != Loaded {
			t.Fatalf("overlay file = %+v", f)
		}
	})
	t.Run("non-regular primary, no legacy: treated as absent", func(t *testing.T) {
		w := newWorld(t)
		mkdir(t, filepath.Join(w.ws, ".codewhale", "config.toml"))
		s := w.load()
		if s.Policy.Overlay.Disabled != "" || s.Policy.ApprovalPolicy.Set {
			t.Errorf("disabled %q, approval %+v", s.Policy.Overlay.Disabled, s.Policy.ApprovalPolicy)
		}
		if f := s.File(KindOverlay); f != nil && (f.State != Missing || len(f.Problems) != 0) {
			t.Errorf("an absent overlay reports %s %q", f.State, codes(f))
		}
	})
	t.Run("missing primary: legacy used", func(t *testing.T) {
		w := newWorld(t)
		writeFile(t, filepath.Join(w.ws, ".deepseek", "config.toml"), "sandbox_mode = \"read-only\"\n")
		s := w.load()
		if got := settingString(s.Policy.SandboxMode); got != "read-only" {
			t.Fatalf("sandbox = %q", got)
		}
		if !strings.HasPrefix(s.Policy.PostureSource, "unset") {
			t.Errorf("sandbox alone does not lock the posture: %q", s.Policy.PostureSource)
		}
	})
	t.Run("legacy read only when primary does not exist", func(t *testing.T) {
		w := newWorld(t)
		w.overlay("model = \"m\"\n")
		writeFile(t, filepath.Join(w.ws, ".deepseek", "config.toml"), never)
		s := w.load()
		if s.Policy.ApprovalPolicy.Set {
			t.Fatalf("legacy overlay applied beside the primary: %+v", s.Policy.ApprovalPolicy)
		}
	})
	t.Run("legacy approval source names .deepseek", func(t *testing.T) {
		w := newWorld(t)
		writeFile(t, filepath.Join(w.ws, ".deepseek", "config.toml"), never)
		s := w.load()
		if s.Policy.PostureSource != "project config .deepseek/config.toml" || s.Policy.Posture != session.Never {
			t.Errorf("source %q posture %v", s.Policy.PostureSource, s.Policy.Posture)
		}
	})
	t.Run("parse failure: silently skipped, CW103, even keys before the error", func(t *testing.T) {
		w := newWorld(t)
		w.overlay(fixture(t, "overlay_unless_trusted_not_toml.toml"))
		w.userConfig(`approval_policy = "auto"`)
		s := w.load()
		if got := settingString(s.Policy.ApprovalPolicy); got != "auto" || s.Policy.Overlay.Disabled == "" {
			t.Fatalf("approval %q disabled %q", got, s.Policy.Overlay.Disabled)
		}
		f := s.File(KindOverlay)
		if f.State != Invalid || len(s.Fatal()) != 0 {
			t.Fatalf("state %s fatal %q", f.State, s.Fatal())
		}
		if codes := codes(f); len(codes) != 2 || codes[0] != "CW001" || codes[1] != "CW103" {
			t.Fatalf("codes %q", codes)
		}
		// §1.5 loader vector: the reason does not quote the contents.
		for _, p := range f.Problems {
			if strings.Contains(p.Message, "approval_policy") || strings.Contains(p.Message, "unless-trusted") {
				t.Errorf("%s message quotes the file: %q", p.Code, p.Message)
			}
		}
		if text := spanText(t, f, f.Problems[0]); text == "" || !strings.Contains("this is not valid toml", strings.TrimSpace(text)) {
			t.Errorf("CW001 span covers %q, want a part of the bad line", text)
		}
	})
	t.Run("workspace == home: skipped", func(t *testing.T) {
		w := newWorld(t)
		w.ws = w.home
		// The home's .codewhale/config.toml is the user config; as an
		// overlay it would be read a second time.
		w.userConfig("model = \"x\"\n")
		w.overlay("model = \"x\"\napproval_policy = \"never\"\n")
		s := w.load()
		if s.File(KindOverlay) != nil || s.Policy.Overlay.Disabled == "" || s.Policy.Overlay.ApprovalPolicy.Set {
			t.Fatalf("overlay %+v file %v", s.Policy.Overlay, s.File(KindOverlay))
		}
		if s.Policy.PostureSource != "config.toml" {
			t.Errorf("source %q", s.Policy.PostureSource)
		}
	})
	t.Run("workspace canonicalises to home: skipped", func(t *testing.T) {
		w := newWorld(t)
		link := w.path("homelink")
		if err := os.Symlink(w.home, link); err != nil {
			t.Skip(err)
		}
		w.ws = link + string(filepath.Separator)
		writeFile(t, filepath.Join(w.home, ".codewhale", "config.toml"), "sandbox_mode = \"read-only\"\n")
		s := w.load()
		if s.File(KindOverlay) != nil || s.Policy.Overlay.Disabled == "" || s.Policy.Overlay.SandboxMode.Set {
			t.Fatalf("overlay %+v", s.Policy.Overlay)
		}
	})
	t.Run("no workspace: no overlay", func(t *testing.T) {
		w := newWorld(t)
		s := Load(Options{Env: w.vars})
		if s.File(KindOverlay) != nil || s.Paths.Overlay != "" {
			t.Fatalf("overlay without a workspace: %+v", s.Paths)
		}
	})
}
