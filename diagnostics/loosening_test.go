package diagnostics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
)

func TestLoosening(t *testing.T) {
	const (
		denyPush = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n"
		exactMk  = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"make test\"\ncommand_exact = true\nworkspace = \"/repo\"\naction = \"allow\"\n"
		gate     = "[hooks]\n[[hooks.hooks]]\nname = \"policy-gate\"\nevent = \"tool_call_before\"\ncommand = \"./gate.sh\"\ncontinue_on_error = false\n"
		law      = `{"protected_invariants": [{"text": "keep secrets", "paths": ["secrets/**", ".env"], "action": "block"}]}`
	)
	tests := []struct {
		name      string
		file      string // config (after the hermetic header), permissions or constitution
		base, now string
		want      []string // span text of each CW500, in order
		message   string   // substring of the first message
	}{
		{name: "approval policy looser", file: "config",
			base: "approval_policy = \"never\"\n", now: "approval_policy = \"auto\"\n",
			want: []string{`"auto"`}, message: `approval_policy was "never", now "auto" (posture Never → Auto-Review)`},
		{name: "approval policy removed", file: "config",
			base: "approval_policy = \"never\"\n", now: "",
			want: []string{""}, message: `approval_policy was "never", now unset`},
		{name: "approval policy tightened", file: "config",
			base: "approval_policy = \"auto\"\n", now: "approval_policy = \"never\"\n"},
		{name: "sandbox looser", file: "config",
			base: "sandbox_mode = \"read-only\"\n", now: "sandbox_mode = \"workspace-write\"\n",
			want: []string{`"workspace-write"`}, message: `sandbox_mode was "read-only", now "workspace-write"`},
		{name: "shell enabled", file: "config",
			base: "allow_shell = false\n", now: "allow_shell = true\n",
			want: []string{"true"}, message: "allow_shell was false, now true"},
		{name: "deny removed", file: "permissions",
			base: denyPush + "\n" + exactMk, now: exactMk,
			want: []string{""}, message: "a deny was removed: the baseline denied tool=exec_shell command=git push (baseline line 1)"},
		{name: "deny weakened to ask", file: "permissions",
			base: denyPush, now: strings.Replace(denyPush, `"deny"`, `"ask"`, 1),
			want: []string{`"ask"`}, message: `action was "deny", now "ask"`},
		{name: "deny scoped to a workspace", file: "permissions",
			base: denyPush, now: strings.Replace(denyPush, "action", "workspace = \"/repo\"\naction", 1),
			want: []string{`"/repo"`}, message: `this deny's workspace was absent, now "/repo"`},
		{name: "deny broadened is fine", file: "permissions",
			base: strings.Replace(denyPush, "git push", "git push --force", 1), now: denyPush},
		{name: "new allow", file: "permissions",
			base: denyPush, now: denyPush + "\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git status\"\naction = \"allow\"\n",
			want: []string{"rules"}, message: "a new allow rule tool=exec_shell command=git status, not in the baseline"},
		{name: "allow made non-exact", file: "permissions",
			base: exactMk, now: strings.Replace(exactMk, "command_exact = true\n", "", 1),
			want: []string{"rules"}, message: "this allow's command_exact was true, now false"},
		{name: "allow lost its workspace", file: "permissions",
			base: exactMk, now: strings.Replace(exactMk, "workspace = \"/repo\"\n", "", 1),
			want: []string{"rules"}, message: `this allow's workspace was "/repo", now absent`},
		{name: "allow command broadened in place", file: "permissions",
			base: exactMk, now: strings.Replace(strings.Replace(exactMk, "make test", "make", 1), "command_exact = true\n", "", 1),
			want: []string{`"make"`}, message: `this allow's command was "make test", now "make"`},
		{name: "allow narrowed is fine", file: "permissions",
			base: strings.Replace(exactMk, "command_exact = true\n", "", 1), now: exactMk},
		{name: "identical rules reordered are fine", file: "permissions",
			base: denyPush + "\n" + exactMk, now: exactMk + "\n" + denyPush},
		{name: "gate made lenient", file: "config",
			base: gate, now: strings.Replace(gate, "continue_on_error = false", "continue_on_error = true", 1),
			want: []string{"true"}, message: `the tool_call_before hook "policy-gate": continue_on_error was false, now true`},
		{name: "gate lenient by default once the key is gone", file: "config",
			base: gate, now: strings.Replace(gate, "continue_on_error = false\n", "", 1),
			want: []string{"hooks.hooks"}, message: "continue_on_error was false, now true"},
		{name: "gate removed", file: "config",
			base: gate, now: "[hooks]\n",
			want: []string{""}, message: `the tool_call_before hook "policy-gate" was removed`},
		{name: "invariant block to ask", file: "constitution",
			base: law, now: strings.Replace(law, `"block"`, `"ask"`, 1),
			want: []string{`"ask"`}, message: `the invariant "keep secrets": action was "block", now "ask"`},
		{name: "invariant lost a path", file: "constitution",
			base: law, now: strings.Replace(law, `, ".env"`, "", 1),
			want: []string{`{"text": "keep secrets", "paths": ["secrets/**"], "action": "block"}`}, message: "paths were secrets/**, .env, now secrets/**"},
		{name: "invariant removed", file: "constitution",
			base: law, now: `{"protected_invariants": []}`,
			want: []string{""}, message: `the invariant "keep secrets" was removed: secrets/**, .env is no longer protected`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newLintWorld(t, "")
			path := map[string]string{"config": w.config, "permissions": w.permissions, "constitution": w.constitution}[tt.file]
			base, now := tt.base, tt.now
			if tt.file == "config" {
				base, now = w.configHead+base, w.configHead+now
			}
			w.write(path, base) // the disk version is the baseline's too
			r := w.check(map[string]string{path: now}, map[string]string{path: base})
			got := problemsWithCode(r, path, "CW500")
			var spans []string
			for _, p := range got {
				spans = append(spans, spanText(now, p.Span))
			}
			if strings.Join(spans, "|") != strings.Join(tt.want, "|") || len(spans) != len(tt.want) {
				t.Fatalf("CW500 spans = %q, want %q\n%+v", spans, tt.want, got)
			}
			if len(got) > 0 && !strings.Contains(got[0].Message, tt.message) {
				t.Errorf("message %q does not contain %q", got[0].Message, tt.message)
			}
		})
	}
}

func TestLooseningNeedsABaseline(t *testing.T) {
	w := newLintWorld(t, "approval_policy = \"never\"\n")
	now := w.configHead + "approval_policy = \"auto\"\n"
	r := w.check(map[string]string{w.config: now}, map[string]string{})
	if got := problemsWithCode(r, w.config, "CW500"); len(got) != 0 {
		t.Errorf("no baseline, yet %+v", got)
	}
}

// FuzzCheck feeds arbitrary bytes as permissions.toml, config.toml and
// constitution.json through Check, against valid baselines so the loosening
// comparison runs too: no panic, and every span lies within its text.
func FuzzCheck(f *testing.F) {
	for _, p := range []string{"/etc/deepseek/managed_config.toml", "/etc/deepseek/requirements.toml"} {
		if _, err := os.Lstat(p); err == nil {
			f.Skipf("%s exists on this host; a fuzzed config.toml without managed_config_path would read it", p)
		}
	}
	seed, err := os.ReadFile(filepath.Join("testdata", "clean_permissions.toml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed, []byte("approval_policy = \"auto\"\n[[hooks.hooks]]\nevent = \"tool_call_before\"\ncommand = \"x\"\n"), []byte(`{"protected_invariants": [{"text": "t", "paths": ["a/**"]}]}`))
	f.Add([]byte("rules = [{ tool = \"bash\", path = \"../*\", workspace = \"x\" }, { tool = \"bash\", path = \"../*\", workspace = \"x\" }]"), []byte("allow_shell = \"true\"\naproval = 1"), []byte("{"))
	f.Add([]byte("[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\ncommand_exact = \"true\"\naction = \"Deny\""), []byte("sandbox_mode = \"Read-Only\"\n"), []byte(`[]`))

	w := newLintWorld(f, "")
	w.write(w.constitution, "{}") // Codewhale reads the law only where the file exists
	baselines := map[string][]byte{
		w.permissions:  seed,
		w.config:       []byte(w.configHead + "approval_policy = \"never\"\nsandbox_mode = \"read-only\"\nallow_shell = false\n"),
		w.constitution: []byte(`{"protected_invariants": [{"text": "t", "paths": ["a/**"], "action": "block"}]}`),
	}
	f.Fuzz(func(t *testing.T, permissions, cfg, constitution []byte) {
		in := Input{
			Options: w.options(nil),
			Baseline: func(path string) ([]byte, bool) {
				b, ok := baselines[path]
				return b, ok
			},
		}
		in.Options.Buffers = map[string][]byte{w.permissions: permissions, w.config: cfg, w.constitution: constitution}
		r := Check(in)
		srcOf := map[string][]byte{}
		for _, fr := range r.Files {
			srcOf[fr.Path] = fr.Src
		}
		within := func(src []byte, s problem.Span) bool { return 0 <= s.Start && s.Start <= s.End && s.End <= len(src) }
		for _, fr := range r.Files {
			for _, p := range fr.Problems {
				if !within(fr.Src, p.Span) {
					t.Fatalf("%s %s span %v outside %d bytes: %s", fr.Path, p.Code, p.Span, len(fr.Src), p.Message)
				}
				for _, fix := range p.Fixes {
					for _, e := range fix.Edits {
						if !within(fr.Src, e.Span) {
							t.Fatalf("%s %s fix %q edit %v outside %d bytes", fr.Path, p.Code, fix.Title, e.Span, len(fr.Src))
						}
					}
				}
				for _, rel := range p.Related {
					if src, ok := srcOf[rel.File]; ok && !within(src, rel.Span) {
						t.Fatalf("%s %s related %v outside %s", fr.Path, p.Code, rel.Span, rel.File)
					}
				}
			}
		}
	})
}
