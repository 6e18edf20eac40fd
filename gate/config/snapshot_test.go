package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

// TestValidateApprovalAndSandbox is docs/codewhale/pipeline.md §1.1 step 6: approval_policy
// and sandbox_mode outside the accepted sets stop Codewhale.
func TestValidateApprovalAndSandbox(t *testing.T) {
	tests := []struct {
		key, value string
		fatal      bool
	}{
		{"approval_policy", "full-access", true},
		{"approval_policy", "ask", true},
		{"approval_policy", "auto-review", true},
		{"approval_policy", "deny", true},
		{"approval_policy", "bypass", true},
		{"approval_policy", "yolo", true},
		{"approval_policy", "denied", true},
		{"approval_policy", "suggested", true},
		{"approval_policy", "", true},
		{"approval_policy", "on-request", false},
		{"approval_policy", "untrusted", false},
		{"approval_policy", "never", false},
		{"approval_policy", "auto", false},
		{"approval_policy", "suggest", false},
		{"approval_policy", "ON-REQUEST", false},
		{"approval_policy", "  Never\t", false},
		{"approval_policy", " Auto ", false},
		{"approvalPolicy", "bypass", true},
		{"approvalPolicy", "Untrusted", false},
		{"sandbox_mode", "Read-Only", false},
		{"sandbox_mode", "read-only", false},
		{"sandbox_mode", " WORKSPACE-WRITE ", false},
		{"sandbox_mode", "danger-full-access", false},
		{"sandbox_mode", "external-sandbox", false},
		{"sandbox_mode", "read_only", true},
		{"sandbox_mode", "readonly", true},
		{"sandbox_mode", "full-access", true},
		{"sandbox_mode", "", true},
		{"sandboxMode", "none", true},
	}
	for _, tc := range tests {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			w := newWorld(t)
			w.userConfig(tc.key + " = " + tomlString(tc.value) + "\n")
			s := w.load()
			if got := len(s.Fatal()) != 0; got != tc.fatal {
				t.Errorf("fatal = %q, want fatal %v", s.Fatal(), tc.fatal)
			}
		})
	}
}

// TestFatalUserConfig: files and values that stop Codewhale (docs/codewhale/pipeline.md
// §1.1 steps 1 and 6, docs/codewhale/contract.md §1).
func TestFatalUserConfig(t *testing.T) {
	t.Run("TOML syntax error: reason omits the contents", func(t *testing.T) {
		w := newWorld(t)
		src := "api_key = \"sk-SECRET-123\"\napproval_policy = \"never\nsandbox_mode = \"read-only\"\n"
		path := w.userConfig(src)
		s := w.load()
		if len(s.Fatal()) != 1 {
			t.Fatalf("fatal = %q", s.Fatal())
		}
		for _, frag := range []string{"sk-SECRET", "api_key", "never", "approval_policy", "read-only"} {
			if strings.Contains(s.Fatal()[0], frag) {
				t.Errorf("fatal %q quotes the file (%q)", s.Fatal()[0], frag)
			}
		}
		if !strings.Contains(s.Fatal()[0], strconv.Quote(path)) || !strings.Contains(s.Fatal()[0], "file contents were omitted") {
			t.Errorf("fatal %q", s.Fatal()[0])
		}
		f := s.File(KindUserConfig)
		if f.State != Invalid || len(f.Problems) != 1 || f.Problems[0].Code != "CW001" {
			t.Fatalf("user file %s %q", f.State, codes(f))
		}
		if line := problem.NewLines(f.Src).LineOf(f.Problems[0].Span.Start); line != 1 && line != 2 {
			t.Errorf("CW001 on line %d, want the unterminated string", line)
		}
	})
	t.Run("symlinked config.toml", func(t *testing.T) {
		w := newWorld(t)
		target := writeFile(t, w.path("real/config.toml"), `approval_policy = "never"`)
		mkdir(t, filepath.Join(w.home, ".codewhale"))
		if err := os.Symlink(target, filepath.Join(w.home, ".codewhale", "config.toml")); err != nil {
			t.Skip(err)
		}
		s := w.load()
		if len(s.Fatal()) == 0 || s.File(KindUserConfig).State != Invalid {
			t.Fatalf("fatal %q state %s", s.Fatal(), s.File(KindUserConfig).State)
		}
		if s.Policy.ApprovalPolicy.Set {
			t.Error("a refused config must not set values")
		}
	})
	t.Run("missing config.toml is not fatal", func(t *testing.T) {
		w := newWorld(t)
		s := w.load()
		if len(s.Fatal()) != 0 || s.File(KindUserConfig).State != Missing {
			t.Fatalf("fatal %q", s.Fatal())
		}
	})
	t.Run("wrong types", func(t *testing.T) {
		for _, tc := range []struct{ src, text string }{
			{"approval_policy = 5\n", "5"},
			{"sandbox_mode = [\"read-only\"]\n", `["read-only"]`},
			{"allow_shell = \"false\"\n", `"false"`},
			{"yolo = 1\n", "1"},
			{"hooks = 3\n", "3"},
		} {
			w := newWorld(t)
			w.userConfig(tc.src)
			s := w.load()
			if len(s.Fatal()) == 0 {
				t.Errorf("%q: not fatal", tc.src)
			}
			checkProblems(t, s.File(KindUserConfig), []wp{{"CW003", tc.text}})
		}
	})
	t.Run("unknown and misplaced keys are only warnings", func(t *testing.T) {
		w := newWorld(t)
		w.userConfig("aproval_policy = \"never\"\n[general]\napproval_policy = \"never\"\n")
		s := w.load()
		if len(s.Fatal()) != 0 || s.Policy.ApprovalPolicy.Set {
			t.Fatalf("fatal %q approval %+v", s.Fatal(), s.Policy.ApprovalPolicy)
		}
		checkProblems(t, s.File(KindUserConfig), []wp{{"CW002", "aproval_policy"}, {"CW002", "general"}, {"CW601", "approval_policy"}})
	})
	t.Run("hooks with an unknown event", func(t *testing.T) {
		w := newWorld(t)
		w.userConfig("[[hooks.hooks]]\nevent = \"before_tool\"\ncommand = \"true\"\n")
		if s := w.load(); len(s.Fatal()) == 0 {
			t.Fatal("unknown hook event must stop Codewhale")
		}
		w.userConfig("[[hooks.hooks]]\nevent = \"tool_call_before\"\ncommand = \"true\"\n")
		if s := w.load(); len(s.Fatal()) != 0 || len(s.Hooks.Hooks) != 1 {
			t.Fatalf("valid hook: fatal %q hooks %d", s.Fatal(), len(s.Hooks.Hooks))
		}
	})
}

// TestPermissionsFile is docs/codewhale/execpolicy.md §1.1 (sibling of the active config)
// and §7 (a malformed file is rejected as a whole, fatally, without its
// contents).
func TestPermissionsFile(t *testing.T) {
	valid := "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\naction = \"allow\"\n"
	broken := []struct{ name, src string }{
		{"syntax error", "[[rules]]\ntool = \"exec_shell\ncommand = \"x\"\n"},
		{"duplicate key", "[[rules]]\ntool = \"exec_shell\"\ntool = \"read_file\"\n"},
		{"unknown top-level key", "version = 1\n" + valid},
		{"unknown rule key", "[[rules]]\ntool = \"exec_shell\"\ndecision = \"allow\"\n"},
		{"action Deny", "[[rules]]\ntool = \"exec_shell\"\naction = \"Deny\"\n"},
		{"action block", "[[rules]]\ntool = \"exec_shell\"\naction = \"block\"\n"},
		{"action empty", "[[rules]]\ntool = \"exec_shell\"\naction = \"\"\n"},
		{"missing tool", "[[rules]]\ncommand = \"rm\"\naction = \"deny\"\n"},
		{"tool = 5", "[[rules]]\ntool = 5\n"},
		{"command_exact string", "[[rules]]\ntool = \"exec_shell\"\ncommand = \"ls\"\ncommand_exact = \"true\"\n"},
		{"path array", "[[rules]]\ntool = \"read_file\"\npath = [\"a\"]\n"},
		{"rules table", "[rules]\ntool = \"exec_shell\"\n"},
		{"rules string", "rules = \"exec_shell\"\n"},
		{"one bad rule among good ones", valid + "[[rules]]\ntool = \"exec_shell\"\ncommand = \"SECRET-CMD\"\naction = \"Deny\"\n"},
	}
	for _, tc := range broken {
		t.Run("rejected: "+tc.name, func(t *testing.T) {
			w := newWorld(t)
			path := writeFile(t, filepath.Join(w.home, ".codewhale", "permissions.toml"), tc.src)
			s := w.load()
			want := "Failed to parse permissions file " + strconv.Quote(path) + "; file contents were omitted"
			if len(s.Fatal()) != 1 || s.Fatal()[0] != want {
				t.Fatalf("fatal = %q\nwant [%q]", s.Fatal(), want)
			}
			if n := len(s.Engine().Rulesets()); n != 0 {
				t.Errorf("engine has %d rulesets, want none", n)
			}
			if f := s.File(KindPermissions); f.State != Invalid || f.Path != path || len(f.Problems) == 0 {
				t.Errorf("permissions file %s %q", f.State, codes(f))
			}
		})
	}
	for _, tc := range []struct{ name, src string }{{"empty", ""}, {"whitespace", " \n\t\n"}, {"comments", "# nothing\n"}, {"empty rules", "rules = []\n"}} {
		t.Run("zero rules: "+tc.name, func(t *testing.T) {
			w := newWorld(t)
			writeFile(t, filepath.Join(w.home, ".codewhale", "permissions.toml"), tc.src)
			s := w.load()
			if len(s.Fatal()) != 0 || len(s.Engine().Rulesets()) != 0 || s.File(KindPermissions).State == Invalid {
				t.Errorf("fatal %q rulesets %d", s.Fatal(), len(s.Engine().Rulesets()))
			}
		})
	}
	t.Run("missing: zero rules", func(t *testing.T) {
		w := newWorld(t)
		s := w.load()
		if len(s.Fatal()) != 0 || len(s.Engine().Rulesets()) != 0 || s.File(KindPermissions).State != Missing {
			t.Errorf("fatal %q", s.Fatal())
		}
	})
	t.Run("valid: one ruleset", func(t *testing.T) {
		w := newWorld(t)
		writeFile(t, filepath.Join(w.home, ".codewhale", "permissions.toml"), valid)
		s := w.load()
		if len(s.Fatal()) != 0 || len(s.Engine().Rulesets()) != 1 || s.File(KindPermissions).State != Loaded {
			t.Errorf("fatal %q rulesets %d", s.Fatal(), len(s.Engine().Rulesets()))
		}
	})
	t.Run("sibling of --config, not of ~/.codewhale", func(t *testing.T) {
		w := newWorld(t)
		writeFile(t, filepath.Join(w.home, ".codewhale", "permissions.toml"), "version = 1\n")
		w.flag = writeFile(t, w.path("alt/cw.toml"), "")
		sib := writeFile(t, w.path("alt/permissions.toml"), valid)
		s := w.load()
		if s.Paths.Permissions != sib || len(s.Fatal()) != 0 || len(s.Engine().Rulesets()) != 1 {
			t.Errorf("permissions %q fatal %q rulesets %d", s.Paths.Permissions, s.Fatal(), len(s.Engine().Rulesets()))
		}
	})
	t.Run("sibling of the legacy config", func(t *testing.T) {
		w := newWorld(t)
		writeFile(t, filepath.Join(w.home, ".deepseek", "config.toml"), "")
		writeFile(t, filepath.Join(w.home, ".deepseek", "permissions.toml"), "version = 1\n")
		s := w.load()
		if len(s.Fatal()) != 1 || !strings.Contains(s.Fatal()[0], filepath.Join(".deepseek", "permissions.toml")) {
			t.Errorf("fatal %q", s.Fatal())
		}
	})
	t.Run("symlinked permissions.toml: the TUI reads through it", func(t *testing.T) {
		w := newWorld(t)
		target := writeFile(t, w.path("real/permissions.toml"), valid)
		mkdir(t, filepath.Join(w.home, ".codewhale"))
		if err := os.Symlink(target, filepath.Join(w.home, ".codewhale", "permissions.toml")); err != nil {
			t.Skip(err)
		}
		s := w.load()
		if len(s.Fatal()) != 0 || len(s.Engine().Rulesets()) != 1 || !hasCode(s.File(KindPermissions), "CW005") {
			t.Errorf("fatal %q rulesets %d codes %q", s.Fatal(), len(s.Engine().Rulesets()), codes(s.File(KindPermissions)))
		}
	})
}

// TestRequirements is docs/codewhale/pipeline.md §1.1 step 5.
func TestRequirements(t *testing.T) {
	tests := []struct {
		name  string
		req   string
		user  string
		env   MapEnv
		fatal string // fragment; "" = not fatal
	}{
		{name: "approval outside the list", req: `allowed_approval_policies = ["never"]`, user: `approval_policy = "on-request"`, fatal: "is not allowed by requirements"},
		{name: "approval in the list, case-insensitive", req: `allowed_approval_policies = ["never"]`, user: `approval_policy = "NEVER"`},
		{name: "approval unset is not checked", req: `allowed_approval_policies = ["never"]`},
		{name: "env value is checked", req: `allowed_approval_policies = ["never", "on-request"]`, env: MapEnv{"CODEWHALE_APPROVAL_POLICY": "auto"}, fatal: "is not allowed by requirements"},
		{name: "empty list is not checked", req: `allowed_approval_policies = []`, user: `approval_policy = "auto"`},
		{name: "sandbox outside the list", req: `allowed_sandbox_modes = ["read-only"]`, user: `sandbox_mode = "workspace-write"`, fatal: "sandbox_mode"},
		{name: "sandbox in the list", req: `allowed_sandbox_modes = ["read-only"]`, user: `sandbox_mode = "Read-Only"`},
		{name: "sandbox unset is not checked", req: `allowed_sandbox_modes = ["read-only"]`, user: `approval_policy = "auto"`},
		{name: "missing file", user: `approval_policy = "auto"`},
		// Fail closed: Codewhale cannot apply requirements it cannot read.
		{name: "unparsable file", req: "allowed_approval_policies = [\n", user: `approval_policy = "never"`, fatal: "omitted"},
		{name: "list of non-strings", req: "allowed_approval_policies = [1]\n", user: `approval_policy = "never"`, fatal: "allowed_approval_policies must be an array of strings"},
		{name: "list is a string", req: "allowed_sandbox_modes = \"read-only\"\n", user: `sandbox_mode = "read-only"`, fatal: "allowed_sandbox_modes must be an array of strings"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			reqPath := w.path("etc/requirements.toml")
			if tc.req != "" {
				writeFile(t, reqPath, tc.req)
			}
			w.userConfig("requirements_path = " + tomlString(reqPath) + "\n" + tc.user + "\n")
			for k, v := range tc.env {
				w.vars[k] = v
			}
			s := w.load()
			if tc.fatal == "" {
				if len(s.Fatal()) != 0 {
					t.Errorf("fatal %q", s.Fatal())
				}
				return
			}
			if len(s.Fatal()) == 0 || !strings.Contains(strings.Join(s.Fatal(), "\n"), tc.fatal) {
				t.Errorf("fatal %q, want one containing %q", s.Fatal(), tc.fatal)
			}
		})
	}
	t.Run("project overlay runs after the requirements check", func(t *testing.T) {
		w := newWorld(t)
		reqPath := writeFile(t, w.path("etc/requirements.toml"), `allowed_approval_policies = ["on-request"]`)
		w.userConfig("requirements_path = " + tomlString(reqPath) + "\napproval_policy = \"on-request\"\n")
		w.overlay(`approval_policy = "never"`)
		s := w.load()
		if len(s.Fatal()) != 0 || s.Policy.ApprovalPolicy.Value != "never" || s.Policy.PostureSource != "requirements" {
			t.Errorf("fatal %q approval %+v source %q", s.Fatal(), s.Policy.ApprovalPolicy, s.Policy.PostureSource)
		}
	})
	t.Run("requirements_path with ~", func(t *testing.T) {
		w := newWorld(t)
		writeFile(t, filepath.Join(w.home, "req.toml"), `allowed_approval_policies = ["never"]`)
		w.userConfig("requirements_path = \"~/req.toml\"\napproval_policy = \"auto\"\n")
		if s := w.load(); len(s.Fatal()) == 0 {
			t.Error("requirements at ~/req.toml not applied")
		}
	})
}

// TestAutoReviewRules is docs/codewhale/pipeline.md §6.1 validation: a rejected rule stops
// Codewhale (CW603 on the offending field).
func TestAutoReviewRules(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		problems []wp
		allow    int
		block    int
	}{
		{name: "valid allow and block", src: "[[auto_review.allow]]\ntool = \"read\"\n[[auto_review.block]]\naction_kind = \"publish\"\n", allow: 1, block: 1},
		{name: "text_contains retired", src: "[[auto_review.allow]]\ntool = \"bash\"\ntext_contains = \"rm\"\n", problems: []wp{{"CW603", `"rm"`}}},
		{name: "textContains retired", src: "[[auto_review.block]]\ntool = \"bash\"\ntextContains = \"git push\"\n", problems: []wp{{"CW603", `"git push"`}}},
		{name: "neither tool nor kind", src: "[[auto_review.allow]]\nid = \"a\"\nreason = \"r\"\n", problems: []wp{{"CW603", "id"}}},
		{name: "blank tool only", src: "[[auto_review.allow]]\ntool = \"  \"\n", problems: []wp{{"CW603", "tool"}}},
		{name: "empty rule points at its header", src: "[[auto_review.block]]\n", problems: []wp{{"CW603", "auto_review.block"}}},
		{name: "legacy kind in allow", src: "[[auto_review.allow]]\naction_kind = \"network\"\n", problems: []wp{{"CW603", `"network"`}}},
		{name: "legacy kind in allow, camelCase", src: "[[auto_review.allow]]\nactionKind = \"secret\"\n", problems: []wp{{"CW603", `"secret"`}}},
		{name: "legacy kind in block is fine", src: "[[auto_review.block]]\naction_kind = \"network\"\n", block: 1},
		{name: "unknown kind", src: "[[auto_review.block]]\ntool = \"x\"\naction_kind = \"bogus\"\n", problems: []wp{{"CW603", `"bogus"`}}},
		{name: "second inline rule", src: "auto_review = { block = [{ action_kind = \"secret\" }, { tool = \"x\", text_contains = \"y\" }] }\n",
			problems: []wp{{"CW603", `"y"`}}, block: 1},
		{name: "one error per rule", src: "[[auto_review.allow]]\naction_kind = \"git\"\n[[auto_review.allow]]\ntool = \"ok\"\n[[auto_review.allow]]\ntool_name = \"t\"\ntextContains = \"z\"\n",
			problems: []wp{{"CW603", `"git"`}, {"CW603", `"z"`}}, allow: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.userConfig(tc.src)
			s := w.load()
			checkProblems(t, s.File(KindUserConfig), tc.problems)
			if fatal := len(s.Fatal()) != 0; fatal != (len(tc.problems) > 0) {
				t.Errorf("fatal %q", s.Fatal())
			}
			if len(s.AutoReview.Allow) != tc.allow || len(s.AutoReview.Block) != tc.block {
				t.Errorf("allow %d block %d, want %d %d", len(s.AutoReview.Allow), len(s.AutoReview.Block), tc.allow, tc.block)
			}
			for _, p := range s.File(KindUserConfig).Problems {
				if p.Severity != problem.Error {
					t.Errorf("%s severity %v", p.Code, p.Severity)
				}
			}
		})
	}
}

// TestProjectHooksTrust is docs/codewhale/pipeline.md §3.2: the project hooks.toml loads
// only for a workspace the user config trusts, after the global hooks.
func TestProjectHooksTrust(t *testing.T) {
	global := "[[hooks.hooks]]\nevent = \"tool_call_before\"\ncommand = \"global-hook\"\n"
	project := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"project-hook\"\n"
	entry := func(w *world, key string) string { return "[projects." + tomlString(key) + "]\n" }
	tests := []struct {
		name    string
		trust   func(w *world) string
		overlay string
		trusted bool
	}{
		{name: "trusted", trust: func(w *world) string { return entry(w, w.ws) + "trust_level = \"trusted\"\n" }, trusted: true},
		{name: "TRUSTED", trust: func(w *world) string { return entry(w, w.ws) + "trust_level = \"TRUSTED\"\n" }, trusted: true},
		{name: "Trusted with spaces", trust: func(w *world) string { return entry(w, w.ws) + "trust_level = \" Trusted \"\n" }, trusted: true},
		{name: "under extras", trust: func(w *world) string {
			return "[projects." + tomlString(w.ws) + ".extras]\ntrust_level = \"trusted\"\n"
		}, trusted: true},
		{name: "tilde key", trust: func(w *world) string { return entry(w, "~/src/proj") + "trust_level = \"trusted\"\n" }, trusted: true},
		{name: "trailing slash key", trust: func(w *world) string { return entry(w, w.ws+"/") + "trust_level = \"trusted\"\n" }, trusted: true},
		{name: "untrusted", trust: func(w *world) string { return entry(w, w.ws) + "trust_level = \"untrusted\"\n" }},
		{name: "no entry", trust: func(w *world) string { return "" }},
		{name: "other workspace", trust: func(w *world) string { return entry(w, w.ws+"2") + "trust_level = \"trusted\"\n" }},
		{name: "parent workspace does not cover children", trust: func(w *world) string { return entry(w, filepath.Dir(w.ws)) + "trust_level = \"trusted\"\n" }},
		{name: "non-string value", trust: func(w *world) string { return entry(w, w.ws) + "trust_level = true\n" }},
		// Fail closed: the spec names [projects."<path>"] only.
		{name: "workspace table does not trust", trust: func(w *world) string {
			return "[workspace." + tomlString(w.ws) + "]\ntrust_level = \"trusted\"\n"
		}},
		// A repository cannot trust itself.
		{name: "trust in the project overlay does not count", trust: func(w *world) string { return "" },
			overlay: "[projects.\"WS\"]\ntrust_level = \"trusted\"\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.ws = filepath.Join(w.home, "src", "proj")
			mkdir(t, w.ws)
			w.userConfig(global + tc.trust(w))
			if tc.overlay != "" {
				w.overlay(strings.ReplaceAll(tc.overlay, `"WS"`, tomlString(w.ws)))
			}
			hooksPath := writeFile(t, filepath.Join(w.ws, ".codewhale", "hooks.toml"), project)
			s := w.load()
			if len(s.Fatal()) != 0 {
				t.Fatalf("fatal %q", s.Fatal())
			}
			if s.Trusted != tc.trusted || s.ProjectHooksLoaded != tc.trusted {
				t.Fatalf("trusted %v loaded %v, want %v", s.Trusted, s.ProjectHooksLoaded, tc.trusted)
			}
			var cmds []string
			for _, h := range s.Hooks.Hooks {
				cmds = append(cmds, h.Source.String()+":"+h.Command)
			}
			want := "global:global-hook"
			if tc.trusted {
				want += ",project:project-hook"
			}
			if strings.Join(cmds, ",") != want {
				t.Errorf("hooks %q, want %q", cmds, want)
			}
			f := s.File(KindProjectHooks)
			if f == nil || f.Path != hooksPath {
				t.Fatalf("hooks file not recorded: %+v", f)
			}
			if got := hasCode(f, "CW303"); got == tc.trusted {
				t.Errorf("CW303 = %v with trusted %v (%q)", got, tc.trusted, codes(f))
			}
			for _, p := range f.Problems {
				if p.Code == "CW303" && p.Severity != problem.Info {
					t.Errorf("CW303 severity %v", p.Severity)
				}
			}
		})
	}
	t.Run("trusted but broken hooks.toml: project hooks dropped, globals kept", func(t *testing.T) {
		w := newWorld(t)
		w.userConfig(global + "[projects." + tomlString(w.ws) + "]\ntrust_level = \"trusted\"\n")
		writeFile(t, filepath.Join(w.ws, ".codewhale", "hooks.toml"), "[[hooks]\n")
		s := w.load()
		if len(s.Fatal()) != 0 || s.ProjectHooksLoaded || len(s.Hooks.Hooks) != 1 || s.Hooks.Hooks[0].Source != hooks.Global {
			t.Errorf("fatal %q loaded %v hooks %+v", s.Fatal(), s.ProjectHooksLoaded, s.Hooks.Hooks)
		}
		if f := s.File(KindProjectHooks); f.State != Invalid || !hasCode(f, "CW001") {
			t.Errorf("hooks file %s %q", f.State, codes(f))
		}
	})
	t.Run("no hooks.toml: nothing recorded", func(t *testing.T) {
		w := newWorld(t)
		w.userConfig(global)
		s := w.load()
		if s.File(KindProjectHooks) != nil || len(s.Hooks.Hooks) != 1 {
			t.Errorf("hooks %+v", s.Hooks.Hooks)
		}
	})
}

// TestConstitution is docs/codewhale/pipeline.md §7.1: .codewhale/constitution.json found
// upward from the workspace to the git root.
func TestConstitution(t *testing.T) {
	law := `{"protected_invariants": [{"text": "The wire format is frozen", "paths": ["crates/protocol/**"], "action": "block"}]}`
	gitRepo := func(t *testing.T, w *world, dir string) {
		writeFile(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, w *world) (ws, constitution string)
		state FileState // "" = not found
		rules int
	}{
		{name: "in the workspace", setup: func(t *testing.T, w *world) (string, string) {
			gitRepo(t, w, w.ws)
			return w.ws, writeFile(t, filepath.Join(w.ws, ".codewhale", "constitution.json"), law)
		}, state: Loaded, rules: 1},
		{name: "at the git root above the workspace", setup: func(t *testing.T, w *world) (string, string) {
			gitRepo(t, w, w.ws)
			sub := filepath.Join(w.ws, "a", "b")
			mkdir(t, sub)
			return sub, writeFile(t, filepath.Join(w.ws, ".codewhale", "constitution.json"), law)
		}, state: Loaded, rules: 1},
		{name: "nearest one wins", setup: func(t *testing.T, w *world) (string, string) {
			gitRepo(t, w, w.ws)
			writeFile(t, filepath.Join(w.ws, ".codewhale", "constitution.json"), law)
			sub := filepath.Join(w.ws, "a")
			return sub, writeFile(t, filepath.Join(sub, ".codewhale", "constitution.json"), `{"protected_invariants": []}`)
		}, state: Loaded, rules: 0},
		{name: "above the git root: not searched", setup: func(t *testing.T, w *world) (string, string) {
			gitRepo(t, w, w.ws)
			writeFile(t, filepath.Join(w.root, ".codewhale", "constitution.json"), law)
			return w.ws, ""
		}},
		{name: "worktree .git file counts as a root", setup: func(t *testing.T, w *world) (string, string) {
			writeFile(t, filepath.Join(w.ws, ".git"), "gitdir: /elsewhere\n")
			writeFile(t, filepath.Join(w.root, ".codewhale", "constitution.json"), law)
			return w.ws, ""
		}},
		{name: "no git root: searched upwards", setup: func(t *testing.T, w *world) (string, string) {
			return w.ws, writeFile(t, filepath.Join(w.root, ".codewhale", "constitution.json"), law)
		}, state: Loaded, rules: 1},
		{name: "broken JSON", setup: func(t *testing.T, w *world) (string, string) {
			gitRepo(t, w, w.ws)
			return w.ws, writeFile(t, filepath.Join(w.ws, ".codewhale", "constitution.json"), `{"protected_invariants": [`)
		}, state: Invalid},
		{name: "bad action", setup: func(t *testing.T, w *world) (string, string) {
			gitRepo(t, w, w.ws)
			return w.ws, writeFile(t, filepath.Join(w.ws, ".codewhale", "constitution.json"),
				`{"protected_invariants": [{"text": "x", "paths": ["a"], "action": "Block"}]}`)
		}, state: Invalid},
		{name: "broken nearest one ends the search", setup: func(t *testing.T, w *world) (string, string) {
			gitRepo(t, w, w.ws)
			writeFile(t, filepath.Join(w.ws, ".codewhale", "constitution.json"), law)
			sub := filepath.Join(w.ws, "a")
			return sub, writeFile(t, filepath.Join(sub, ".codewhale", "constitution.json"), "")
		}, state: Invalid},
		// A dropped glob is a warning: the other rules still protect.
		{name: "one bad glob among good ones", setup: func(t *testing.T, w *world) (string, string) {
			gitRepo(t, w, w.ws)
			return w.ws, writeFile(t, filepath.Join(w.ws, ".codewhale", "constitution.json"),
				`{"protected_invariants": [{"text": "x", "paths": ["a[b", "CHANGELOG.md"]}]}`)
		}, state: Loaded, rules: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			ws, path := tc.setup(t, w)
			mkdir(t, ws)
			w.ws = ws
			s := w.load()
			f := s.File(KindConstitution)
			if tc.state == "" {
				if f != nil {
					t.Fatalf("found %s", f.Path)
				}
				return
			}
			if f == nil {
				t.Fatal("constitution not recorded")
			}
			if f.Path != path || f.State != tc.state || len(s.Law.Rules) != tc.rules {
				t.Errorf("file %s %s, %d rules; want %s %s, %d rules (%q)", f.Path, f.State, len(s.Law.Rules), path, tc.state, tc.rules, codes(f))
			}
			if len(s.Fatal()) != 0 {
				t.Errorf("a constitution is never fatal: %q", s.Fatal())
			}
		})
	}
}

// TestFilesRecorded: every file the load looked at is recorded once.
func TestFilesRecorded(t *testing.T) {
	w := newWorld(t)
	w.userConfig("model = \"m\"\n")
	w.settings(`permission_posture = "ask"`)
	w.overlay("model = \"m\"\n")
	s := w.load()
	seen := map[Kind]int{}
	for _, f := range s.Files {
		seen[f.Kind]++
	}
	for _, k := range []Kind{KindUserConfig, KindSettings, KindOverlay, KindPermissions} {
		if seen[k] != 1 {
			t.Errorf("%s recorded %d times", k, seen[k])
		}
	}
	for _, k := range []Kind{KindManaged, KindRequirements} {
		if seen[k] != 0 {
			t.Errorf("missing %s recorded", k)
		}
	}
}
