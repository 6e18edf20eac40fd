package diagnostics

import (
	"slices"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// checkAt lints as Codewhale version would.
func (w *lintWorld) checkAt(version string, buffers map[string]string) *Result {
	w.t.Helper()
	choice, err := release.Requested(version, "test")
	if err != nil || !choice.Exact() {
		w.t.Fatalf("release %q: %v %+v", version, err, choice)
	}
	return Check(Input{Options: w.options(buffers), Codewhale: choice})
}

// TestPermissionLintsPerRelease: the lints say what the user's release
// does, for the example tables of docs/codewhale/releases/0.10.0.md A.2.2,
// A.3.4 and Part C, and releases/0.10.1.md N3–N5 and N8. Each row gives the
// findings of code, by span text, at each release; a substring of the first
// finding's message; and the file after its first fix.
func TestPermissionLintsPerRelease(t *testing.T) {
	rules := func(lines ...string) string { return "rules = [\n" + strings.Join(lines, ",\n") + ",\n]\n" }
	tests := []struct {
		name        string
		permissions string
		code        string
		want        map[string][]string // release → span texts
		message     map[string]string   // release → substring of the first message
		fix         map[string]string   // release → file after the first fix
	}{
		{
			name: "rooted path rules match from 0.10.0",
			permissions: rules(`{ tool = "read_file", path = "/etc/shadow", action = "deny" }`,
				`{ tool = "read_file", path = "~/.ssh/id_rsa", action = "deny" }`,
				`{ tool = "read_file", path = 'C:\Users\u\.aws\credentials', action = "deny" }`,
				`{ tool = "read_file", path = "/etc/passwd", workspace = "/repo", action = "deny" }`),
			code: "CW207",
			want: map[string][]string{
				"0.9.10": {`"/etc/shadow"`, `"~/.ssh/id_rsa"`, `'C:\Users\u\.aws\credentials'`, `"/etc/passwd"`},
				"0.10.0": nil, "0.10.1": nil,
			},
			message: map[string]string{"0.9.10": "Codewhale 0.9.10 compares paths relative to the session's workspace"},
		},
		{
			name: "a rooted path is compared byte for byte",
			permissions: rules(`{ tool = "read_file", path = "/etc//shadow", action = "deny" }`,
				`{ tool = "list_dir", path = "/etc/ssh/", action = "deny" }`,
				`{ tool = "read_file", path = "/etc/./hosts", action = "deny" }`),
			code: "CW207",
			want: map[string][]string{
				"0.9.10": {`"/etc//shadow"`, `"/etc/ssh/"`, `"/etc/./hosts"`}, // absolute: only inside a workspace
				"0.10.0": {`"/etc//shadow"`, `"/etc/ssh/"`, `"/etc/./hosts"`},
				"0.10.1": {`"/etc//shadow"`, `"/etc/ssh/"`, `"/etc/./hosts"`},
			},
			message: map[string]string{"0.10.1": "Codewhale 0.10.1 compares a rooted path with the call's path byte for byte"},
			fix: map[string]string{"0.10.1": rules(`{ tool = "read_file", path = "/etc/shadow", action = "deny" }`,
				`{ tool = "list_dir", path = "/etc/ssh/", action = "deny" }`,
				`{ tool = "read_file", path = "/etc/./hosts", action = "deny" }`)},
		},
		{
			name: "traversal, and calls with traversal in 0.10.1",
			permissions: rules(`{ tool = "read_file", path = "/etc/../etc/shadow", action = "deny" }`,
				`{ tool = "read_file", path = "../secret", action = "allow" }`),
			code: "CW207",
			want: map[string][]string{
				"0.9.10": {`"/etc/../etc/shadow"`, `"../secret"`},
				"0.10.0": {`"/etc/../etc/shadow"`, `"../secret"`},
				"0.10.1": {`"/etc/../etc/shadow"`, `"../secret"`},
			},
			message: map[string]string{"0.10.0": "never matches: Codewhale does not resolve traversal", "0.10.1": "meets only calls whose own path has a `..` component"},
		},
		{
			name:        "~ alone and ~user are relative",
			permissions: rules(`{ tool = "list_dir", path = "~", action = "deny" }`, `{ tool = "read_file", path = "~root/.ssh/id_rsa", action = "deny" }`),
			code:        "CW207",
			want: map[string][]string{
				"0.9.10": {`"~"`, `"~root/.ssh/id_rsa"`},
				"0.10.1": {`"~"`, `"~root/.ssh/id_rsa"`},
			},
			message: map[string]string{"0.10.1": "only `~/…` is a rooted path in Codewhale 0.10.1"},
		},
		{
			name:        "the deny wildcard",
			permissions: rules(`{ tool = "exec_shell", command = "dd * of=/dev/sda", action = "deny" }`),
			code:        "CW204",
			want:        map[string][]string{"0.9.10": {`"dd * of=/dev/sda"`}, "0.10.0": nil, "0.10.1": nil},
			message:     map[string]string{"0.9.10": "this `*` is not a wildcard in Codewhale 0.9.10"},
		},
		{
			name: "`*` in a typed deny is literal in 0.10.0, a wildcard of workspace-scoped denies in 0.10.1",
			permissions: rules(`{ tool = "exec_shell", command = "git * push", workspace = "/repo", action = "deny" }`,
				`{ tool = "exec_shell", command = "rm * /", command_exact = true, action = "deny" }`),
			code: "CW204",
			want: map[string][]string{
				"0.10.0": {`"git * push"`, `"/repo"`, `"rm * /"`, `true`},
				"0.10.1": {`"rm * /"`, `true`},
			},
			message: map[string]string{"0.10.0": "this `*` is not a wildcard here: Codewhale 0.10.0 reads `*` as any words only in a deny without workspace or command_exact", "0.10.1": "an exact deny compares the whole command as written"},
		},
		{
			name:        "`*` in allow and ask rules is literal in every release",
			permissions: rules(`{ tool = "exec_shell", command = "git push *", action = "allow" }`, `{ tool = "exec_shell", command = "git * push" }`),
			code:        "CW204",
			want: map[string][]string{
				"0.9.10": {`"git push *"`, `"git * push"`},
				"0.10.1": {`"git push *"`, `"git * push"`},
			},
			message: map[string]string{"0.10.1": "Codewhale 0.10.1 matches an allow rule's command word by word"},
		},
		{
			name:        "reordered flags: the wildcard catches them from 0.10.0",
			permissions: rules(`{ tool = "exec_shell", command = "rm -rf /", action = "deny" }`),
			code:        "CW204",
			want:        map[string][]string{"0.9.10": {`"rm -rf /"`}, "0.10.0": {`"rm -rf /"`}, "0.10.1": {`"rm -rf /"`}},
			message: map[string]string{
				"0.9.10": "deny only the command words",
				"0.10.0": "in Codewhale 0.10.0 `rm * /` catches every spelling",
			},
			fix: map[string]string{
				"0.10.0": rules(`{ tool = "exec_shell", command = "rm * /", action = "deny" }`),
				"0.10.1": rules(`{ tool = "exec_shell", command = "rm * /", action = "deny" }`),
			},
		},
		{
			name:        "options after positionals match from 0.10.1",
			permissions: rules(`{ tool = "exec_shell", command = "git push -f", action = "deny" }`),
			code:        "CW204",
			want:        map[string][]string{"0.10.0": {`"git push -f"`}, "0.10.1": nil},
			message:     map[string]string{"0.10.0": "`git push x -f`"},
		},
		{
			name:        "an exact deny sees the program's name in 0.10.1",
			permissions: rules(`{ tool = "exec_shell", command = "git push", command_exact = true, action = "deny" }`),
			code:        "CW204",
			want:        map[string][]string{"0.10.0": {`true`}, "0.10.1": {`true`}},
			message:     map[string]string{"0.10.0": "with more arguments, a path-spelled program or other spacing runs", "0.10.1": "with more arguments or other spacing runs"},
		},
		{
			name:        "a typed deny matches like a prefix in 0.10.1",
			permissions: rules(`{ tool = "exec_shell", command = "git push", workspace = "/repo", action = "deny" }`),
			code:        "CW204",
			want:        map[string][]string{"0.9.10": {`"/repo"`}, "0.10.0": {`"/repo"`}, "0.10.1": nil},
		},
		{
			name:        "a deny of only `*` blocks every shell command",
			permissions: rules(`{ tool = "exec_shell", command = "* *", action = "deny" }`, `{ tool = "read_file", command = "git * push", action = "deny" }`),
			code:        "CW203",
			want: map[string][]string{
				"0.9.10": {`"git * push"`},
				"0.10.0": {`"* *"`, `"git * push"`},
				"0.10.1": {`"* *"`, `"git * push"`},
			},
			message: map[string]string{"0.10.1": "forbids every shell command with a word"},
		},
		{
			name: "a deny of only `*` shadows every shell allow and ask",
			permissions: rules(`{ tool = "exec_shell", command = "git status", action = "allow" }`,
				`{ tool = "exec_shell", command = "*", action = "deny" }`,
				`{ tool = "exec_shell", command = "--version", action = "allow" }`,
				`{ tool = "read_file", action = "allow" }`),
			code: "CW200",
			want: map[string][]string{
				"0.9.10": nil,
				// The engine forbids `--version` too: `*` matches any
				// words, a flag included.
				"0.10.0": {`{ tool = "exec_shell", command = "git status", action = "allow" }`, `{ tool = "exec_shell", command = "--version", action = "allow" }`},
			},
			message: map[string]string{"0.10.0": "the deny at line 3 is the hard-deny prefix `*`"},
		},
		{
			name: "a wildcard deny shadows the allows and asks it covers",
			permissions: rules(`{ tool = "exec_shell", command = "git * push", action = "deny" }`,
				`{ tool = "exec_shell", command = "git checkout push", action = "allow" }`,
				`{ tool = "exec_shell", command = "git log push origin", command_exact = true }`,
				`{ tool = "exec_shell", command = "git pushd" }`,
				`{ tool = "exec_shell", command = "git", action = "allow" }`,
				`{ tool = "exec_shell", command = "git * push", workspace = "/repo", action = "allow" }`),
			code: "CW200",
			want: map[string][]string{
				"0.9.10": {`{ tool = "exec_shell", command = "git * push", workspace = "/repo", action = "allow" }`}, // the same literal words, as a typed rule
				"0.10.1": {`{ tool = "exec_shell", command = "git checkout push", action = "allow" }`, `{ tool = "exec_shell", command = "git log push origin", command_exact = true }`, `{ tool = "exec_shell", command = "git * push", workspace = "/repo", action = "allow" }`},
			},
			message: map[string]string{"0.10.1": "the deny at line 2 is the hard-deny prefix `git * push`"},
		},
		{
			name: "a wildcard deny shadows an allow of the command it names by path",
			permissions: rules(`{ tool = "exec_shell", command = "rm * /", action = "deny" }`,
				`{ tool = "exec_shell", command = "/bin/rm -rf /", action = "allow" }`),
			code: "CW200",
			want: map[string][]string{
				"0.9.10": nil,
				"0.10.0": {`{ tool = "exec_shell", command = "/bin/rm -rf /", action = "allow" }`}, // the deny matcher reads /bin/rm as rm
			},
		},
		{
			name: "from 0.10.1 an ask covers only commands that spell its words at the front",
			permissions: rules(`{ tool = "exec_shell", command = "git status", action = "ask" }`,
				`{ tool = "exec_shell", command = "git --no-pager status", command_exact = true, action = "allow" }`),
			code: "CW200",
			want: map[string][]string{
				"0.10.0": {`{ tool = "exec_shell", command = "git --no-pager status", command_exact = true, action = "allow" }`},
				"0.10.1": nil,
			},
		},
		{
			name:        "a dead workspace keeps a rooted path from matching anywhere",
			permissions: rules(`{ tool = "read_file", path = "/etc/shadow", workspace = "repo", action = "deny" }`),
			code:        "CW206",
			want:        map[string][]string{"0.9.10": {`"repo"`}, "0.10.1": {`"repo"`}},
			message:     map[string]string{"0.10.1": "in Codewhale 0.10.1 its rooted path would match in every session without the workspace key"},
		},
		{
			name:        "allow prefixes cover only simple commands from 0.10.1",
			permissions: rules(`{ tool = "exec_shell", command = "git status", action = "allow" }`),
			code:        "CW205",
			want:        map[string][]string{"0.10.0": {`"git status"`}, "0.10.1": {`"git status"`}},
			message: map[string]string{
				"0.10.0": "also approves `git status` with redirections",
				"0.10.1": "Codewhale 0.10.1 no longer lets it cover redirections",
			},
		},
	}
	for _, tt := range tests {
		for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
			want, ok := tt.want[version]
			if !ok {
				continue
			}
			t.Run(tt.name+"/"+version, func(t *testing.T) {
				w := newLintWorld(t, "")
				r := w.checkAt(version, map[string]string{w.permissions: tt.permissions})
				got := problemsWithCode(r, w.permissions, tt.code)
				var spans []string
				for _, p := range got {
					spans = append(spans, spanText(tt.permissions, p.Span))
				}
				if !slices.Equal(spans, want) {
					t.Fatalf("%s spans = %q, want %q\nall: %+v", tt.code, spans, want, r.File(w.permissions).Problems)
				}
				if m := tt.message[version]; m != "" && !strings.Contains(got[0].Message, m) {
					t.Errorf("message %q does not contain %q", got[0].Message, m)
				}
				if fix, ok := tt.fix[version]; ok {
					if len(got[0].Fixes) == 0 {
						t.Fatal("no fix")
					}
					if after := applyFix(tt.permissions, got[0].Fixes[0]); after != fix {
						t.Errorf("after the fix:\n%s\nwant:\n%s", after, fix)
					}
				}
			})
		}
	}
}

// TestLooseningPerRelease: the CW500 cases of docs/codewhale/releases/0.10.0.md
// Part C, at the releases where they loosen anything.
func TestLooseningPerRelease(t *testing.T) {
	const (
		rootedDeny = "[[rules]]\ntool = \"read_file\"\npath = \"/etc/shadow\"\naction = \"deny\"\n"
		starDeny   = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm * /\"\naction = \"deny\"\n"
	)
	tests := []struct {
		name, file string
		base, now  string
		want       map[string][]string // release → span text of each CW500
		message    map[string]string
	}{
		{name: "network turned on", file: "config",
			base: "", now: "sandbox_network_access = true\n",
			want:    map[string][]string{"0.9.10": nil, "0.10.0": {"true"}, "0.10.1": {"true"}},
			message: map[string]string{"0.10.0": "sandbox_network_access was unset (false), now true: in Codewhale 0.10.0 sandboxed shell commands now reach the network"}},
		{name: "network stays off", file: "config",
			base: "sandbox_network_access = true\n", now: "sandbox_network_access = false\n",
			want: map[string][]string{"0.10.1": nil}},
		{name: "read deny-list off", file: "config",
			base: "sandbox_read_denylist_defaults = true\n", now: "sandbox_read_denylist_defaults = false\n",
			want:    map[string][]string{"0.9.10": nil, "0.10.1": {"false"}},
			message: map[string]string{"0.10.1": "the built-in credential read deny-list is off"}},
		{name: "new exemptions", file: "config",
			base: "sandbox_read_denylist_exempt = [\"~/.kube\"]\n", now: "sandbox_read_denylist_exempt = [\"~/.kube\", \"~/.ssh\"]\n",
			want:    map[string][]string{"0.9.10": nil, "0.10.0": {`["~/.kube", "~/.ssh"]`}},
			message: map[string]string{"0.10.0": `new sandbox_read_denylist_exempt entries "~/.ssh"`}},
		{name: "approval timeout removed", file: "config",
			base: "[approval]\ntimeout_seconds = 60\n", now: "[approval]\n",
			want:    map[string][]string{"0.9.10": nil, "0.10.0": {""}},
			message: map[string]string{"0.10.0": "[approval] timeout_seconds was 60, now unset"}},
		{name: "wildcard removed", file: "permissions",
			base: starDeny, now: strings.Replace(starDeny, "rm * /", "rm -rf /", 1),
			want:    map[string][]string{"0.10.0": {`"rm -rf /"`}, "0.10.1": {`"rm -rf /"`}},
			message: map[string]string{"0.10.1": "this deny lost its `*` wildcard"}},
		{name: "wildcard added is no loosening", file: "permissions",
			base: strings.Replace(starDeny, "rm * /", "rm -rf /", 1), now: starDeny,
			want: map[string][]string{"0.9.10": {`"rm * /"`}, "0.10.0": nil, "0.10.1": nil}},
		{name: "rooted path made relative", file: "permissions",
			base: rootedDeny, now: strings.Replace(rootedDeny, "/etc/shadow", "etc/shadow", 1),
			want:    map[string][]string{"0.9.10": {`"etc/shadow"`}, "0.10.1": {`"etc/shadow"`}},
			message: map[string]string{"0.9.10": `this deny's path was "/etc/shadow", now "etc/shadow"`, "0.10.1": `this deny's path was the rooted "/etc/shadow", now the relative "etc/shadow"`}},
	}
	for _, tt := range tests {
		for _, version := range []string{"0.9.10", "0.10.0", "0.10.1"} {
			want, ok := tt.want[version]
			if !ok {
				continue
			}
			t.Run(tt.name+"/"+version, func(t *testing.T) {
				w := newLintWorld(t, "")
				path := map[string]string{"config": w.config, "permissions": w.permissions}[tt.file]
				base, now := tt.base, tt.now
				if tt.file == "config" {
					base, now = w.configHead+base, w.configHead+now
				}
				w.write(path, base)
				choice, _ := release.Requested(version, "test")
				r := Check(Input{Options: w.options(map[string]string{path: now}), Codewhale: choice,
					Baseline: func(p string) ([]byte, bool) { return []byte(base), p == path }})
				got := problemsWithCode(r, path, "CW500")
				var spans []string
				for _, p := range got {
					spans = append(spans, spanText(now, p.Span))
				}
				if !slices.Equal(spans, want) {
					t.Fatalf("CW500 spans = %q, want %q\n%+v", spans, want, got)
				}
				if m := tt.message[version]; m != "" && !strings.Contains(got[0].Message, m) {
					t.Errorf("message %q does not contain %q", got[0].Message, m)
				}
			})
		}
	}
}
