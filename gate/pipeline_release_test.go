package gate

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/hooks"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// as is the fixture's files loaded again as the release named version.
func (fx fixture) as(t testing.TB, version string) fixture {
	t.Helper()
	fx.snap = config.Load(config.Options{ConfigFlag: fx.snap.Paths.Config, Workspace: fx.ws, Env: config.MapEnv{"HOME": fx.home}, Release: release.MustOf(version)})
	return fx
}

var releaseColumns = []string{"0.9.10", "0.10.0", "0.10.1"}

// TestGroupingKeyPerRelease is docs/codewhale/releases/0.10.0.md B.8.3 and
// 0.10.1.md Part D item 7: the grouping key of each column's release ("="
// is the 0.9.10 answer, "exact" the call's exact key).
func TestGroupingKeyPerRelease(t *testing.T) {
	patch := func(files ...string) map[string]any {
		text := "*** Begin Patch\n"
		for _, f := range files {
			text += "*** Update File: " + f + "\n"
		}
		return map[string]any{"patch": text + "*** End Patch"}
	}
	unresolved := map[string]any{"patch": "nothing here"}
	rows := []struct {
		semantic string
		input    map[string]any
		keys     [3]string // 0.9.10, 0.10.0, 0.10.1
	}{
		{"apply_patch", unresolved, [3]string{"patch:no_files", "patch:unresolved:" + fingerprint(unresolved), "="}},
		{"apply_patch", patch("b.rs", "a.rs"), [3]string{"patch:" + fingerprint([]string{"a.rs", "b.rs"}), "=", "="}},
		{"apply_patch", patch("./a.rs", "b.rs"), [3]string{"patch:" + fingerprint([]string{"./a.rs", "b.rs"}), "patch:" + fingerprint([]string{"a.rs", "b.rs"}), "="}},
		{"exec_shell", map[string]any{"command": "cargo test"}, [3]string{"shell:cargo test", "=", "="}},
		{"exec_shell", map[string]any{"command": "cargo test --release -q"}, [3]string{"shell:cargo test", "=", "="}},
		{"exec_shell", map[string]any{"command": "git status -sb"}, [3]string{"shell:git status", "=", "="}},
		{"exec_shell", map[string]any{"command": "cargo test -j4"}, [3]string{"shell:cargo test", "=", "shell:exact:" + fingerprint("cargo test -j4")}},
		{"exec_shell", map[string]any{"command": "cargo test --jobs=4"}, [3]string{"shell:cargo test", "=", "shell:exact:" + fingerprint("cargo test --jobs=4")}},
		{"exec_shell", map[string]any{"command": "git push origin main"}, [3]string{"shell:git push", "=", "shell:exact:" + fingerprint("git push origin main")}},
		{"exec_shell", map[string]any{"command": "git -C /x status"}, [3]string{"shell:git", "=", "shell:exact:" + fingerprint("git -C /x status")}},
		{"exec_shell", map[string]any{"command": "cargo test && rm -rf ~"}, [3]string{"shell:cargo test", "=", "shell:exact:" + fingerprint("cargo test && rm -rf ~")}},
		{"exec_shell", map[string]any{"command": "cargo test > out"}, [3]string{"shell:cargo test", "=", "shell:exact:" + fingerprint("cargo test > out")}},
		{"exec_shell", map[string]any{"command": "FOO=1 cargo test"}, [3]string{"shell:foo=1", "=", "shell:exact:" + fingerprint("FOO=1 cargo test")}},
		// 0.10.1's classifier keeps python's -m (0.10.1.md A.2.5), in the
		// grouping key as in the allow matcher.
		{"exec_shell", map[string]any{"command": "python -m pytest -x"}, [3]string{"shell:python", "=", "shell:python -m pytest"}},
		{"exec_shell", map[string]any{"command": "ls -la"}, [3]string{"shell:ls", "=", "shell:exact:" + fingerprint("ls -la")}},
		{"task_shell_start", map[string]any{"command": "make"}, [3]string{"shell:make", "=", "="}},
		{"exec_shell_wait", map[string]any{"task_id": "t1"}, [3]string{"shell:<empty>", "=", "exact"}},
		{"exec_interact", map[string]any{"task_id": "t1", "input": "y"}, [3]string{"shell:<empty>", "=", "exact"}},
		{"fetch_url", map[string]any{"url": "https://example.com/x"}, [3]string{"net:example.com", "=", "="}},
	}
	for _, row := range rows {
		prev := ""
		for i, version := range releaseColumns {
			want := row.keys[i]
			switch want {
			case "=":
				want = prev
			case "exact":
				want = ExactKey(row.semantic, row.input)
			}
			prev = want
			if got := GroupingKey(release.MustOf(version), row.semantic, row.input); got != want {
				t.Errorf("GroupingKey(%s, %s, %v) = %q, want %q", version, row.semantic, row.input, got, want)
			}
		}
	}
}

// TestValueFreeOption holds valueFreeOption to the pattern D.7's choice
// is written as, on the words a shell command's options are made of.
func TestValueFreeOption(t *testing.T) {
	spec := regexp.MustCompile(`^(-[A-Za-z]+|--[A-Za-z][A-Za-z-]*)$`)
	alphabet := []byte("-aZ=4_.é ")
	r := rand.New(rand.NewPCG(16, 7))
	words := []string{"", "-", "--", "---", "-s", "-la", "--release", "--a-", "--a-b", "-a-", "-j4", "--out=x", "--4", "-é", "x", "--no-deps"}
	for range 20000 {
		w := make([]byte, r.IntN(6))
		for i := range w {
			w[i] = alphabet[r.IntN(len(alphabet))]
		}
		words = append(words, string(w))
	}
	for _, w := range words {
		if got, want := valueFreeOption(w), spec.MatchString(w); got != want {
			t.Errorf("valueFreeOption(%q) = %v, the pattern says %v", w, got, want)
		}
	}
}

// TestSessionGrantsPerRelease: what an earlier "approve for session" of
// another cargo command grants, and that a decision changed by a release
// names the change (docs/codewhale/releases/0.10.0.md B.8.3).
func TestSessionGrantsPerRelease(t *testing.T) {
	fx := load(t, files{git: true}).noFatal(t)
	cases := []struct {
		name    string
		session fakeSessions
		call    Request
		// verdicts per release column, and the change a 0.10.x ask names.
		verdicts [3]Verdict
		change   release.Change
	}{
		{"tool-name grant", approvedFor("bash", "shell:cargo build"), shellCall("cargo test"), [3]Verdict{Allow, Ask, Ask}, release.SessionGrantsByFamily},
		{"family grant", approvedFor("shell:cargo test"), shellCall("cargo test --release"), [3]Verdict{Allow, Allow, Allow}, release.Change{}},
		{"family grant, valued option", approvedFor("shell:cargo test"), shellCall("cargo test -j4"), [3]Verdict{Allow, Allow, Ask}, release.ShellGrantsNarrowed},
		{"shared no-files patch grant", approvedFor("patch:no_files"), Request{Tool: "apply_patch", Input: map[string]any{"patch": "not a patch"}},
			[3]Verdict{Allow, Ask, Ask}, release.PatchGrantsPerFile},
	}
	for _, c := range cases {
		for i, version := range releaseColumns {
			req := c.call
			req.Workspace = fx.ws
			d := fx.as(t, version).decide(t, req, Deps{Sessions: c.session})
			if d.Decision != c.verdicts[i] || d.Codewhale != version {
				t.Errorf("%s at %s: %s by %s (%s), want %s", c.name, version, d.Decision, d.Codewhale, d.Reason, c.verdicts[i])
				continue
			}
			changed := c.verdicts[i] != c.verdicts[0]
			if got := slices.Contains(d.Changes, c.change.String()); got != changed {
				t.Errorf("%s at %s: changes %q, want %s named: %v", c.name, version, d.Changes, c.change.ID, changed)
			}
			if d.Decision == Ask {
				grants := d.Prompt.SessionGrants
				if want := version == "0.9.10"; slices.Contains(grants, req.Tool) != want {
					t.Errorf("%s at %s: session grants %q (tool name granted: want %v)", c.name, version, grants, want)
				}
			}
		}
	}
}

func shellCall(command string) Request {
	return Request{Tool: "bash", Input: map[string]any{"command": command}}
}

// TestHookChangesAreNamed: a hook that fires only since 0.10.1 (the
// exec_shell alias) denies, and the decision names the release change.
func TestHookChangesAreNamed(t *testing.T) {
	fx := load(t, files{git: true, config: "[hooks]\n[[hooks.hooks]]\nevent = \"tool_call_before\"\ncommand = \"guard\"\ncondition = { type = \"tool_name\", name = \"exec_shell\" }\n"}).noFatal(t)
	runner := &fakeRunner{script: map[string]hooks.Result{"guard": exit(2, "")}}
	for _, version := range releaseColumns {
		d := fx.as(t, version).decide(t, fx.call("bash", map[string]any{"command": "ls"}), Deps{Hooks: runner})
		aliased := version == "0.10.1"
		if (d.Decision == Deny && d.Layer == LayerHooks) != aliased {
			t.Errorf("at %s: %s at layer %d: %s", version, d.Decision, d.Layer, d.Reason)
		}
		if got := slices.Contains(d.Changes, release.HookShellAliases.String()); got != aliased {
			t.Errorf("at %s: changes %q", version, d.Changes)
		}
	}
}

// BenchmarkApprovalPerRelease decides a call that layer 8 settles from a
// session grant, at each release: 0.10.x computes the narrowed keys and,
// unlike 0.9.10, the oldest release's disposition to name a change.
func BenchmarkApprovalPerRelease(b *testing.B) {
	fx := load(b, files{git: true}).noFatal(b)
	req := fx.call("bash", map[string]any{"command": "cargo test --release"})
	deps := Deps{Sessions: approvedFor("shell:cargo test")}
	for _, version := range releaseColumns {
		b.Run(version, func(b *testing.B) {
			at := fx.as(b, version)
			if d := at.decide(b, req, deps); d.Decision != Allow || d.Layer != LayerApproval {
				b.Fatalf("%s at layer %d: %s", d.Decision, d.Layer, d.Reason)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = at.decide(b, req, deps)
			}
		})
	}
}

// trustedWithProjectHooks is a git workspace the user config trusts, whose
// .codewhale/hooks.toml holds src (not approved).
func trustedWithProjectHooks(t *testing.T, src string) (fixture, string) {
	t.Helper()
	fx := load(t, files{git: true}).noFatal(t)
	hooksPath := filepath.Join(fx.ws, ".codewhale", "hooks.toml")
	must(t, os.MkdirAll(filepath.Dir(hooksPath), 0o755))
	must(t, os.WriteFile(hooksPath, []byte(src), 0o644))
	cfg, err := os.ReadFile(fx.snap.Paths.Config)
	must(t, err)
	must(t, os.WriteFile(fx.snap.Paths.Config, append(cfg, "[projects."+quoteTOML(fx.ws)+"]\ntrust_level = \"trusted\"\n"...), 0o644))
	return fx, hooksPath
}

// TestProjectHookRunsOnlyOnceApproved: a trusted workspace's project hook
// denies under 0.9.10; from 0.10.0 it runs only once the digest of its
// bytes is approved (docs/codewhale/releases/0.10.0.md B.3).
func TestProjectHookRunsOnlyOnceApproved(t *testing.T) {
	src := "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"guard\"\n"
	fx, hooksPath := trustedWithProjectHooks(t, src)
	runner := &fakeRunner{script: map[string]hooks.Result{"guard": exit(2, "")}}
	req := fx.call("bash", map[string]any{"command": "ls"})
	store := filepath.Join(fx.home, ".codewhale", config.HookApprovalsFile)
	for _, approved := range []bool{false, true} {
		if approved {
			must(t, os.WriteFile(store, []byte("[projects."+quoteTOML(hooksPath)+"]\napproved_sha256 = \""+config.HookDigest([]byte(src))+"\"\n"), 0o600))
		}
		for _, version := range releaseColumns {
			d := fx.as(t, version).decide(t, req, Deps{Hooks: runner})
			runs := approved || version == "0.9.10"
			if (d.Decision == Deny && d.Layer == LayerHooks) != runs {
				t.Errorf("approved %v at %s: %s at layer %d: %s", approved, version, d.Decision, d.Layer, d.Reason)
			}
			if named := slices.Contains(d.Changes, release.HookDigestApproval.String()); named == runs {
				t.Errorf("approved %v at %s: changes %q", approved, version, d.Changes)
			}
		}
	}
}

// A withheld project hooks.toml changed the decision only for calls one of
// its hooks would have run for: the Decision names the digest change then
// and not for other calls (which 0.9.10 decided the same way).
func TestWithheldHooksNamedOnlyWhereTheyWouldRun(t *testing.T) {
	fx, _ := trustedWithProjectHooks(t, "[[hooks]]\nevent = \"tool_call_before\"\ncommand = \"guard\"\ncondition = { type = \"tool_name\", name = \"bash\" }\n")
	runner := &fakeRunner{script: map[string]hooks.Result{"guard": exit(2, "")}}
	for _, tc := range []struct {
		req   Request
		named bool
	}{
		{fx.call("bash", map[string]any{"command": "ls"}), true},
		{fx.call("read_file", map[string]any{"path": "README.md"}), false},
	} {
		d := fx.as(t, "0.10.1").decide(t, tc.req, Deps{Hooks: runner})
		if named := slices.Contains(d.Changes, release.HookDigestApproval.String()); named != tc.named {
			t.Errorf("%s: changes %q, want the digest change named: %v", tc.req.Tool, d.Changes, tc.named)
		}
		// A matching hook nobody approved holds the call for a human (Ask
		// prompts; Full Access, which cannot prompt, denies): Codewhale
		// may run the hook (approved there) and deny.
		if held := d.Decision == Ask && d.Layer == LayerApproval; held != tc.named {
			t.Errorf("%s: %s at layer %d (%s), want held for a human: %v", tc.req.Tool, d.Decision, d.Layer, d.Reason, tc.named)
		}
		d = fx.as(t, "0.10.1").decide(t, withPosture(tc.req, session.FullAccess), Deps{Hooks: runner})
		if held := d.Decision == Deny && d.Layer == LayerApproval; held != tc.named {
			t.Errorf("%s under Full Access: %s at layer %d (%s), want denied as a hold: %v", tc.req.Tool, d.Decision, d.Layer, d.Reason, tc.named)
		}
	}
	if len(runner.calls) != 0 {
		t.Errorf("an unapproved project hook ran: %v", runner.calls)
	}
}
