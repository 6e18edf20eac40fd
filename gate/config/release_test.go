package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

func (w *world) loadAs(r release.Release) *Snapshot {
	w.t.Helper()
	return Load(Options{ConfigFlag: w.flag, Workspace: w.ws, Env: w.vars, Release: r})
}

func messages(f *File) string {
	var out []string
	for _, p := range f.Problems {
		out = append(out, string(p.Code)+" "+p.Message)
	}
	return strings.Join(out, "\n")
}

// docs/codewhale/releases/0.10.0.md B.1, B.11: the keys 0.10.0 reads are
// unknown to 0.9.10 (CW002) and known from 0.10.0, with their typos
// suggested among them.
func TestNewConfigKeysPerRelease(t *testing.T) {
	src := `sandbox_network_access = true
sandbox_read_denylist_defaults = false
sandbox_denied_read_paths = ["~/secret"]
sandbox_read_denylist_exempt = ["~/.kube"]
project_instruction_imports = ["AGENTS.md"]
[compaction]
[approval]
timeout_seconds = 90
[tools]
user_input_timeout_seconds = 0
user_input_max_questions = 3
user_input_max_options = 5
[features]
code_mode = true
`
	for _, tc := range []struct {
		version string
		cw002   []string
	}{
		// 0.9.10 reads none of them, in the tables too.
		{"0.9.10", []string{"timeout_seconds", "user_input_timeout_seconds", "user_input_max_questions", "user_input_max_options", "code_mode",
			"sandbox_network_access", "sandbox_read_denylist_defaults", "sandbox_denied_read_paths", "sandbox_read_denylist_exempt", "project_instruction_imports", "compaction"}},
		{"0.10.0", nil},
		{"0.10.1", nil},
	} {
		t.Run(tc.version, func(t *testing.T) {
			w := newWorld(t)
			w.userConfig(src)
			s := w.loadAs(release.MustOf(tc.version))
			f := s.File(KindUserConfig)
			var got []string
			for _, p := range f.Problems {
				if p.Code == "CW002" {
					got = append(got, spanText(t, f, p))
				}
			}
			if !reflect.DeepEqual(got, tc.cw002) {
				t.Fatalf("CW002 on %q, want %q\n%s", got, tc.cw002, messages(f))
			}
			if len(s.Fatal()) > 0 {
				t.Fatalf("fatal: %v", s.Fatal())
			}
			p := s.Policy
			if tc.version == "0.9.10" {
				if !reflect.DeepEqual(p.AddedSettings, AddedSettings{}) || len(p.ReadDenyList.Rules) != 0 {
					t.Fatalf("0.9.10 read 0.10.0 keys: %+v", p.AddedSettings)
				}
				return
			}
			want := AddedSettings{
				SandboxNetworkAccess:        BoolSetting{Value: true, Set: true, Source: "config.toml"},
				SandboxReadDenylistDefaults: BoolSetting{Value: false, Set: true, Source: "config.toml"},
				SandboxDeniedReadPaths:      ListSetting{Value: []string{"~/secret"}, Set: true, Source: "config.toml"},
				SandboxReadDenylistExempt:   ListSetting{Value: []string{"~/.kube"}, Set: true, Source: "config.toml"},
				ApprovalTimeoutSeconds:      IntSetting{Value: 90, Set: true, Source: "config.toml"},
				UserInputTimeoutSeconds:     IntSetting{Value: 0, Set: true, Source: "config.toml"},
				UserInputMaxQuestions:       IntSetting{Value: 3, Set: true, Source: "config.toml"},
				UserInputMaxOptions:         IntSetting{Value: 5, Set: true, Source: "config.toml"},
				CodeMode:                    BoolSetting{Value: true, Set: true, Source: "config.toml"},
				ProjectInstructionImports:   ListSetting{Value: []string{"AGENTS.md"}, Set: true, Source: "config.toml"},
			}
			if !reflect.DeepEqual(p.AddedSettings, want) {
				t.Fatalf("settings\n got %+v\nwant %+v", p.AddedSettings, want)
			}
			// Defaults off: only the configured path is denied.
			if got := p.ReadDenyList.Spelled(); got != "~/secret" {
				t.Fatalf("deny-list %q", got)
			}
		})
	}
}

// The defaults of B.1 and D.12 when nothing sets the keys.
func TestNewConfigKeyDefaults(t *testing.T) {
	for _, tc := range []struct {
		version  string
		codeMode bool
	}{{"0.10.0", false}, {"0.10.1", true}} {
		w := newWorld(t)
		w.userConfig("")
		p := w.loadAs(release.MustOf(tc.version)).Policy
		got := []any{p.SandboxNetworkAccess.Value, p.SandboxReadDenylistDefaults.Value, p.ApprovalTimeoutSeconds.Value,
			p.UserInputTimeoutSeconds.Value, p.UserInputMaxQuestions.Value, p.UserInputMaxOptions.Value, p.CodeMode.Value}
		want := []any{false, true, int64(0), int64(300), int64(6), int64(4), tc.codeMode}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s defaults %v, want %v", tc.version, got, want)
		}
		if p.ApprovalTimeoutSeconds.Set || p.ApprovalTimeoutSeconds.Source != "default" {
			t.Errorf("%s: a default is not Set: %+v", tc.version, p.ApprovalTimeoutSeconds)
		}
	}
}

// CW002 suggests the nearest key of the release, CW003 reports wrong types
// (which stop Codewhale) and clamps with a warning.
func TestNewConfigKeyTyposAndValues(t *testing.T) {
	tests := []struct {
		name, src  string
		want       []wp
		fatal      bool
		suggestion string
	}{
		{name: "typo", src: "sandbox_read_denylist_exmpt = []\n", want: []wp{{"CW002", "sandbox_read_denylist_exmpt"}},
			suggestion: "did you mean `sandbox_read_denylist_exempt`"},
		{name: "bool as string", src: "sandbox_network_access = \"yes\"\n", want: []wp{{"CW003", `"yes"`}}, fatal: true},
		{name: "list of non-strings", src: "sandbox_denied_read_paths = [1]\n", want: []wp{{"CW003", "1"}}, fatal: true},
		{name: "timeout a string", src: "[approval]\ntimeout_seconds = \"60\"\n", want: []wp{{"CW003", `"60"`}}, fatal: true},
		{name: "timeout negative", src: "[approval]\ntimeout_seconds = -1\n", want: []wp{{"CW003", "-1"}}, fatal: true},
		{name: "timeout above a day clamps", src: "[approval]\ntimeout_seconds = 90000\n", want: []wp{{"CW003", "90000"}}},
		{name: "questions above 10 clamp", src: "[tools]\nuser_input_max_questions = 11\n", want: []wp{{"CW003", "11"}}},
		{name: "options below 2 clamp", src: "[tools]\nuser_input_max_options = 1\n", want: []wp{{"CW003", "1"}}},
		{name: "code_mode a string", src: "[features]\ncode_mode = \"on\"\n", want: []wp{{"CW003", `"on"`}}, fatal: true},
		{name: "compaction not a table", src: "compaction = 1\n", want: []wp{{"CW003", "1"}}, fatal: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.userConfig(tc.src)
			s := w.loadAs(release.MustOf("0.10.0"))
			f := s.File(KindUserConfig)
			checkProblems(t, f, tc.want)
			if (len(s.Fatal()) > 0) != tc.fatal {
				t.Errorf("fatal = %v, want fatal %v", s.Fatal(), tc.fatal)
			}
			if !strings.Contains(messages(f), tc.suggestion) {
				t.Errorf("no %q in %s", tc.suggestion, messages(f))
			}
		})
	}
	w := newWorld(t)
	w.userConfig("[approval]\ntimeout_seconds = 90000\n[tools]\nuser_input_max_options = 1\n")
	p := w.loadAs(release.MustOf("0.10.0")).Policy
	if p.ApprovalTimeoutSeconds.Value != 86400 || p.UserInputMaxOptions.Value != 2 {
		t.Errorf("clamped to %d and %d", p.ApprovalTimeoutSeconds.Value, p.UserInputMaxOptions.Value)
	}
}

// The managed config replaces and the environment overrides the user's
// sandbox_network_access, as for the other keys (B.1).
func TestSandboxNetworkAccessSources(t *testing.T) {
	w := newWorld(t)
	managed := writeFile(t, w.path("etc/managed.toml"), "sandbox_network_access = false\n")
	w.userConfig("managed_config_path = " + tomlString(managed) + "\nrequirements_path = " + tomlString(w.path("etc/req.toml")) + "\nsandbox_network_access = true\n")
	if p := w.loadAs(release.MustOf("0.10.0")).Policy; p.SandboxNetworkAccess != (BoolSetting{Value: false, Set: true, Source: "managed config"}) {
		t.Errorf("managed: %+v", p.SandboxNetworkAccess)
	}
	w.vars["CODEWHALE_SANDBOX_NETWORK_ACCESS"] = "1"
	writeFile(t, managed, "")
	if p := w.loadAs(release.MustOf("0.10.0")).Policy; p.SandboxNetworkAccess != (BoolSetting{Value: true, Set: true, Source: "CODEWHALE_SANDBOX_NETWORK_ACCESS"}) {
		t.Errorf("env: %+v", p.SandboxNetworkAccess)
	}
	if p := w.loadAs(release.MustOf("0.9.10")).Policy; p.SandboxNetworkAccess.Set {
		t.Errorf("0.9.10 read the environment's network access: %+v", p.SandboxNetworkAccess)
	}
}

// A project overlay cannot set the 0.10.0 keys (CW101 from 0.10.0, an
// unknown key, CW102, before); 0.10.1 ignores its notes_path.
func TestOverlayUserOnlyKeysPerRelease(t *testing.T) {
	src := "sandbox_network_access = true\nnotes_path = \"notes.md\"\n"
	for _, tc := range []struct {
		version string
		want    []wp
	}{
		{"0.9.10", []wp{{"CW102", "sandbox_network_access"}}},
		{"0.10.0", []wp{{"CW101", "sandbox_network_access"}}},
		{"0.10.1", []wp{{"CW101", "sandbox_network_access"}, {"CW101", "notes_path"}}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			w := newWorld(t)
			w.userConfig("")
			w.overlay(src)
			s := w.loadAs(release.MustOf(tc.version))
			checkProblems(t, s.File(KindOverlay), tc.want)
			if s.Policy.SandboxNetworkAccess.Value {
				t.Error("the overlay turned the network on")
			}
		})
	}
}

// docs/codewhale/releases/0.10.0.md Part D.9: 0.10.1 removed [context]
// enabled, the seam keys and [tui] terminal_probe_timeout_ms; they warn
// (not as typos) only from 0.10.1.
func TestRemovedConfigKeys(t *testing.T) {
	src := "[context]\nenabled = true\nseam_budget = 3\nwindow = 8\n[tui]\nterminal_probe_timeout_ms = 50\n"
	for _, tc := range []struct {
		version string
		want    []wp
	}{
		{"0.9.10", nil},
		{"0.10.0", nil},
		{"0.10.1", []wp{{"CW002", "enabled"}, {"CW002", "seam_budget"}, {"CW002", "terminal_probe_timeout_ms"}}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			w := newWorld(t)
			w.userConfig(src)
			f := w.loadAs(release.MustOf(tc.version)).File(KindUserConfig)
			checkProblems(t, f, tc.want)
			for _, p := range f.Problems {
				if !strings.Contains(p.Message, "Codewhale 0.10.1 removed") || strings.Contains(p.Message, "did you mean") {
					t.Errorf("message %q", p.Message)
				}
			}
		})
	}
}

// docs/codewhale/releases/0.10.0.md B.9.2: the built-in rules, exemptions
// (whole rules at or below a path; .env by name), extra paths that cannot
// be exempted, symlinks resolved.
func TestReadDenyList(t *testing.T) {
	home, ws := "/h", "/w"
	deny := func(s AddedSettings, path string) string {
		if r, ok := buildReadDenyList(s, home, ws).Denies(path, home, ws); ok {
			return r.Spelled
		}
		return ""
	}
	on := AddedSettings{SandboxReadDenylistDefaults: BoolSetting{Value: true}}
	exempt := on
	exempt.SandboxReadDenylistExempt = ListSetting{Value: []string{"~/.config", ".env", "~/.ssh/id_rsa"}}
	extra := AddedSettings{SandboxDeniedReadPaths: ListSetting{Value: []string{"~/private", "build/secret"}}}
	rows := []struct {
		s    AddedSettings
		path string
		want string
	}{
		{on, "~/.ssh/id_rsa", "~/.ssh"},
		{on, "/h/.ssh", "~/.ssh"},
		{on, "/h/.sshx", ""},
		{on, "/h/.aws/credentials", "~/.aws"},
		{on, "~/.netrc", "~/.netrc"},
		{on, ".env", ".env"},
		{on, "app/.env.local", ".env"},
		{on, "/elsewhere/.env", ".env"},
		{on, ".env.example", ""},
		{on, "src/main.go", ""},
		{on, "/h/../h/.kube/config", "~/.kube"},
		// An exemption removes the rules at or below it, never above it.
		{exempt, "/h/.config/gcloud/creds.json", ""},
		{exempt, ".env", ""},
		{exempt, "~/.ssh/id_rsa", "~/.ssh"},
		{exempt, "~/.aws/config", "~/.aws"},
		// Defaults off: only configured paths; relative ones in the workspace.
		{extra, "~/.ssh/id_rsa", ""},
		{extra, "/h/private/x", "~/private"},
		{extra, "build/secret", "build/secret"},
		{extra, "/w/build/secret/k", "build/secret"},
		{extra, "/w/build/secrets", ""},
		{AddedSettings{SandboxDeniedReadPaths: ListSetting{Value: []string{"/"}}}, "/any/file", "/"},
	}
	for _, r := range rows {
		if got := deny(r.s, r.path); got != r.want {
			t.Errorf("%+v %q: denied by %q, want %q", r.s.SandboxReadDenylistExempt.Value, r.path, got, r.want)
		}
	}
	// Where the file system ignores case, so does the deny-list.
	defer func(saved bool) { caseFolds = saved }(caseFolds)
	for _, folds := range []bool{false, true} {
		caseFolds = folds
		if got := deny(on, "~/.SSH/id_rsa"); (got == "~/.ssh") != folds {
			t.Errorf("case folding %v: ~/.SSH/id_rsa denied by %q", folds, got)
		}
	}
	caseFolds = false
	// With no workspace, a relative path still meets the file-name rules.
	if r, ok := buildReadDenyList(on, home, "").Denies("app/.env", home, ""); !ok || r.Spelled != ".env" {
		t.Errorf("relative .env without a workspace: %+v %v", r, ok)
	}
	// A configured path cannot be exempted.
	both := extra
	both.SandboxReadDenylistExempt = ListSetting{Value: []string{"~/private"}}
	if got := deny(both, "~/private/x"); got != "~/private" {
		t.Errorf("exempted a configured path: %q", got)
	}
}

// A rule matches the resolved path too: a link in the workspace to a
// credential file is refused, as is a path through a linked home.
func TestReadDenyListResolvesLinks(t *testing.T) {
	w := newWorld(t)
	writeFile(t, filepath.Join(w.home, ".ssh", "id_rsa"), "key")
	symlink(t, filepath.Join(w.home, ".ssh", "id_rsa"), filepath.Join(w.ws, "innocent.txt"))
	w.userConfig("")
	s := w.loadAs(release.MustOf("0.10.0"))
	if r, ok := s.Policy.ReadDenyList.Denies("innocent.txt", w.home, w.ws); !ok || r.Spelled != "~/.ssh" {
		t.Errorf("link to a key: %+v %v", r, ok)
	}
	linkedHome := filepath.Join(w.root, "linkedhome")
	symlink(t, w.home, linkedHome)
	if _, ok := s.Policy.ReadDenyList.Denies(filepath.Join(linkedHome, ".ssh", "id_rsa"), w.home, w.ws); !ok {
		t.Error("path through a linked home not denied")
	}
	// `up` points into the home: `up/..` is the home as the kernel walks
	// it, though the text cleans to the workspace.
	if err := os.MkdirAll(filepath.Join(w.home, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(w.home, "sub"), filepath.Join(w.ws, "up"))
	if _, ok := s.Policy.ReadDenyList.Denies("up/../.ssh/id_rsa", w.home, w.ws); !ok {
		t.Error("a link followed by .. into ~/.ssh not denied")
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// docs/codewhale/releases/0.10.0.md Part D.9 (changelog-only; choices.md):
// from 0.10.1 requirements check an unset key as its default, accept an
// approval policy naming the same posture, and lock the posture when they
// list sandbox modes.
func TestRequirementsPerRelease(t *testing.T) {
	tests := []struct {
		name, req, user  string
		fatal0910, fatal bool // at 0.9.10/0.10.0, at 0.10.1
		locked0910, lock bool
	}{
		{name: "unset approval, default not listed", req: `allowed_approval_policies = ["never"]`, fatal: true, locked0910: true, lock: true},
		{name: "unset approval, default listed", req: `allowed_approval_policies = ["on-request", "never"]`, locked0910: true, lock: true},
		{name: "unset approval, alias of the default listed", req: `allowed_approval_policies = ["untrusted"]`, locked0910: true, lock: true},
		{name: "unset sandbox, default not listed", req: `allowed_sandbox_modes = ["read-only"]`, fatal: true, lock: true},
		{name: "unset sandbox, default listed", req: `allowed_sandbox_modes = ["workspace-write", "read-only"]`, lock: true},
		{name: "approval alias", req: `allowed_approval_policies = ["on-request"]`, user: `approval_policy = "suggest"`, fatal0910: true, locked0910: true, lock: true},
		{name: "alias of another posture", req: `allowed_approval_policies = ["on-request"]`, user: `approval_policy = "auto"`, fatal0910: true, fatal: true, locked0910: true, lock: true},
	}
	for _, tc := range tests {
		for _, v := range []string{"0.9.10", "0.10.0", "0.10.1"} {
			t.Run(tc.name+"/"+v, func(t *testing.T) {
				w := newWorld(t)
				reqPath := writeFile(t, w.path("etc/requirements.toml"), tc.req)
				w.userConfig("requirements_path = " + tomlString(reqPath) + "\n" + tc.user + "\n")
				s := w.loadAs(release.MustOf(v))
				newer := release.MustOf(v).Has(release.StricterRequirements)
				wantFatal, wantLock := tc.fatal0910, tc.locked0910
				if newer {
					wantFatal, wantLock = tc.fatal, tc.lock
				}
				if got := len(s.Fatal()) > 0; got != wantFatal {
					t.Errorf("fatal %q, want fatal %v", s.Fatal(), wantFatal)
				}
				if s.Policy.Locked != wantLock {
					t.Errorf("locked %v by %q, want %v", s.Policy.Locked, s.Policy.PostureSource, wantLock)
				}
				if got, want := len(s.Policy.LockChanges) > 0, wantLock && !tc.locked0910; got != want {
					t.Errorf("lock changes %v, want %v", s.Policy.LockChanges, want)
				}
				wantChange := newer && tc.fatal && !tc.fatal0910
				if got := len(s.Policy.FatalChanges) > 0; got != wantChange {
					t.Errorf("fatal changes %v, want %v", s.Policy.FatalChanges, wantChange)
				}
			})
		}
	}
}

// In [approval], [tools] and [features] the keys 0.10.0 added are checked
// by name: a typo of one is CW002 with the key meant (0.10.x), the key
// itself is CW002 at 0.9.10, which does not read it, and other keys of
// those tables raise nothing.
func TestNestedAddedKeys(t *testing.T) {
	src := "[approval]\ntimeout_secnds = 30\n[tools]\nuser_input_timeout_secs = 60\nsomething_else = 1\n[features]\ncode_mdoe = true\n"
	for _, version := range []string{"0.10.0", "0.10.1"} {
		w := newWorld(t)
		w.userConfig(src)
		s := w.loadAs(release.MustOf(version))
		var got []string
		for _, p := range s.File(KindUserConfig).Problems {
			if p.Code == "CW002" {
				got = append(got, p.Message)
			}
		}
		want := []string{
			"Codewhale silently ignores the unknown key `timeout_secnds` in [approval]; did you mean `timeout_seconds`?",
			"Codewhale silently ignores the unknown key `user_input_timeout_secs` in [tools]; did you mean `user_input_timeout_seconds`?",
			"Codewhale silently ignores the unknown key `code_mdoe` in [features]; did you mean `code_mode`?",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: CW002 %q", version, got)
		}
	}
	w := newWorld(t)
	w.userConfig("[approval]\ntimeout_seconds = 30\n")
	s := w.loadAs(release.MustOf("0.9.10"))
	var got []string
	for _, p := range s.File(KindUserConfig).Problems {
		got = append(got, string(p.Code)+" "+p.Message)
	}
	if !slices.Contains(got, "CW002 Codewhale 0.9.10 does not read [approval] timeout_seconds: it was added in Codewhale 0.10.0") {
		t.Errorf("0.9.10: %q", got)
	}
}
