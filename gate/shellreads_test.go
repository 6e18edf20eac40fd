package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// shellReadsFixture is a 0.10.1 home holding ~/.ssh/id_rsa and
// ~/.config/gcloud, and a workspace holding src/*.go, .env.example, a
// .env below app/ and and, beside it, a link ../links/keys → ~/.ssh.
func shellReadsFixture(t *testing.T) fixture {
	fx := load(t, files{release: "0.10.1"}).noFatal(t)
	for _, f := range []string{
		filepath.Join(fx.home, ".ssh", "id_rsa"),
		filepath.Join(fx.home, ".config", "gcloud", "credentials.db"),
		filepath.Join(fx.ws, "src", "main.go"),
		filepath.Join(fx.ws, "src", "util.go"),
		filepath.Join(fx.ws, "app", ".env"),
		filepath.Join(fx.ws, ".env.example"),
	} {
		must(t, os.MkdirAll(filepath.Dir(f), 0o755))
		must(t, os.WriteFile(f, []byte("x\n"), 0o600))
	}
	links := filepath.Join(filepath.Dir(fx.ws), "links")
	must(t, os.MkdirAll(links, 0o755))
	must(t, os.Symlink(filepath.Join(fx.home, ".ssh"), filepath.Join(links, "keys")))
	return fx
}

// decideOutside is an Ask-posture shell call another agent runs outside
// Codewhale's sandbox; {home} and {ws} in the input are the fixture's.
func decideOutside(t *testing.T, fx fixture, name string, input map[string]any) Decision {
	t.Helper()
	in := map[string]any{}
	for k, v := range input {
		in[k] = strings.NewReplacer("{home}", fx.home, "{ws}", fx.ws).Replace(v.(string))
	}
	req := withPosture(fx.call(name, in), session.Ask)
	req.OutsideSandbox = true
	return fx.decide(t, req, Deps{})
}

func refusedByDenyList(d Decision) bool {
	return d.Decision == Deny && d.Layer == LayerSandbox && strings.Contains(d.Reason, "read deny-list")
}

// Issue 14 point 2: globs, brace lists, variables, directory changes and
// recursive reads reach the deny-list's paths without naming them; each is
// refused at layer 9 with the path it could reach in the reason.
func TestShellWordsThatCouldReachDeniedPaths(t *testing.T) {
	fx := shellReadsFixture(t)
	rows := []struct{ command, reach string }{
		{"cat ~/.s*h/id_rsa", "/.ssh"},
		{"cat ~/.s?h/id_rsa", "/.ssh"},
		{"cat ~/.[s]sh/id_rsa", "/.ssh"},
		{"cat ~/.{ssh,x}/id_rsa", "/.ssh"},
		{"cat ~/.*/id_rsa", "/.ssh"},
		{"head ~/.s*/id*", "/.ssh"},
		{"cat .e*", ".env"},
		{"cat .en[v]", ".env"},
		{"cat {.env,x}", ".env"},
		{"cat app/{x,.env}", ".env"},
		{"grep -r SECRET .", "/.env"},
		{"grep -rn SECRET", "/.env"},
		{"rg SECRET", "/.env"},
		{"cat ${HOME}/.ssh/id_rsa", "/.ssh"},
		{`cat "${HOME}/.ssh/id_rsa"`, "/.ssh"},
		{"cat $X/.ssh/id_rsa", "/.ssh"},
		{"X=~/.ssh; cat $X/id_rsa", "/.ssh"},
		{"export K=$HOME/.ssh/id_rsa && cat $K", "/.ssh"},
		{"cat $XDG_CONFIG_HOME/gcloud/credentials.db", "/.config/gcloud"},
		{"cat $(pwd)/.env", ".env"},
		{"cat ~nosuchuser0xc0de/.ssh/id_rsa", "/.ssh"},
		{"tar cz -C ~ .ssh", "/.ssh"},
		{"tar -C ~ -czf - .ssh", "/.ssh"},
		{"cd ~ && cat .ssh/id_rsa", "/.ssh"},
		{"cd && cat .ssh/id_rsa", "/.ssh"},
		{"git -C ~ diff --no-index .ssh/id_rsa /dev/null", "/.ssh"},
		{"make -C ~/.ssh", "/.ssh"},
		{"cat ../links/k*/id_rsa", "/.ssh"},
		{"grep -r SECRET ../links", "/.ssh"},
		{"find ~ -name id_rsa", "/.ssh"},
		{"du -sh ~", "/.ssh"},
		{"ls -R ~/.config", "/.config/gcloud"},
		{"grep -r token ~/.config", "/.config/gcloud"},
		{"rg token ~", "/.ssh"},
		{"cp -r ~ /tmp/backup", "/.ssh"},
		{"rsync -a ~/ /tmp/backup", "/.ssh"},
		{"zip -r /tmp/a.zip app", "/app/.env"},
		{"tar czf /tmp/a.tgz .", "/.env"},
		{"find . -type f -exec cat {} +", "/.env"},
		{"find . -type f | xargs grep SECRET", "/.env"},
		{`find . -type f | while read f; do cat "$f"; done`, "/.env"},
		{"cat $(find . -type f)", "/.env"},
		{"grep -r SECRET $DIR", "/.ssh"},
		{"shopt -s dotglob; cat *", ".env"},
		{"sudo grep -R SECRET app", "/app/.env"},
		{"bash -c 'cat ~/.s*/id_rsa'", "/.ssh"},
		// A cd that may not happen, or not for the commands after it,
		// leaves them reading the directory before too.
		{"cd nosuchdir; grep -r SECRET .", "/app/.env"},
		{"(cd src); grep -r SECRET .", "/app/.env"},
		{"cd src || true; grep -r SECRET .", "/app/.env"},
		{"bash -c 'cd src'; grep -r SECRET .", "/app/.env"},
		{"cd src && cat ../.e*", "/ws/.env"},
		{"cd src && grep -r SECRET ..", "/app/.env"},
		// A quoted look-alike checked first does not vouch for the glob.
		{"cat '.e*' .e*", "/ws/.env"},
	}
	for _, row := range rows {
		d := decideOutside(t, fx, "exec_shell", map[string]any{"command": row.command})
		if !refusedByDenyList(d) || !strings.Contains(d.Reason, row.reach) {
			t.Errorf("%s: %s layer %d %q, want refused reaching %q", row.command, d.Decision, d.Layer, d.Reason, row.reach)
		}
	}
}

// The ordinary commands an agent runs stay as they were: nothing in them
// could reach a denied path.
func TestOrdinaryShellCommandsNotRefused(t *testing.T) {
	fx := shellReadsFixture(t)
	for _, command := range []string{
		"ls", "ls -la", "ls ~", "cat src/*.go", "cat *", "grep -r foo src", "grep -rn TODO src",
		"rg foo src", "git status", "git -C src log", "cd src && cat main.go", "make -C src",
		"find . -name '*.go'", "find . -name '*.go' | wc -l", "find src -type f -exec wc -l {} +", "du -sh src", "tar czf /tmp/out.tgz src",
		"cp -r src /tmp/dst", "cat .env.example", "cat $f", "cat ~/$f", "cat ${name}.txt",
		"echo $HOME", "for f in src/*.go; do wc -l $f; done", "cat src/{main,util}.go",
		"grep -e foo -r src", "rg --files src", "cd src && grep -r foo .", "cd src; rg foo",
		"git -C src grep foo", "grep '.*' src/main.go",
	} {
		d := decideOutside(t, fx, "exec_shell", map[string]any{"command": command})
		if refusedByDenyList(d) {
			t.Errorf("%s: refused: %q", command, d.Reason)
		}
	}
}

// Another agent's search tools, mapped to grep_files and file_search, run
// outside the sandbox too: grep_files reads its directory recursively and
// file_search's pattern is a glob. Codewhale's own calls of them are left
// as Codewhale decides them (it does not cover grep_files).
func TestSearchToolsOutsideTheSandbox(t *testing.T) {
	fx := shellReadsFixture(t)
	rows := []struct {
		name    string
		input   map[string]any
		refused bool
	}{
		{"grep_files", map[string]any{"pattern": "BEGIN", "path": "~/.ssh"}, true},
		{"grep_files", map[string]any{"pattern": "token", "path": "~"}, true},
		{"grep_files", map[string]any{"pattern": "SECRET"}, true},
		{"grep_files", map[string]any{"pattern": "SECRET", "path": "app"}, true},
		{"grep_files", map[string]any{"pattern": "func", "path": "src"}, false},
		{"file_search", map[string]any{"pattern": "**/.env"}, true},
		{"file_search", map[string]any{"pattern": ".s*/id_*", "path": "~"}, true},
		{"file_search", map[string]any{"pattern": "**/*", "path": "{home}"}, true},
		{"file_search", map[string]any{"pattern": "*.go", "path": "src"}, false},
		{"file_search", map[string]any{"pattern": "**/*.go"}, false},
		{"file_search", map[string]any{"pattern": "*.md", "path": "~"}, false},
	}
	for _, row := range rows {
		d := decideOutside(t, fx, row.name, row.input)
		if refusedByDenyList(d) != row.refused {
			t.Errorf("%s %v outside the sandbox: %s layer %d %q, want refused=%v", row.name, row.input, d.Decision, d.Layer, d.Reason, row.refused)
		}
		if row.name != "grep_files" {
			continue
		}
		req := withPosture(fx.call(row.name, row.input), session.Ask)
		if d := fx.decide(t, req, Deps{}); refusedByDenyList(d) {
			t.Errorf("%s %v: Codewhale's own call was refused: %q", row.name, row.input, d.Reason)
		}
	}
}
