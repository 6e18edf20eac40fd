package approvals

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/internal/filetest"

	"github.com/codewhale-ls/codewhale-ls/gate/execpolicy"
)

func strPtr(s string) *string { return &s }

// shellGrant is the record "always" writes for a shell call
// (docs/codewhale/execpolicy.md §1.3 `P`): exact, workspace-scoped allow.
func shellGrant(command string) execpolicy.Rule {
	return execpolicy.Rule{Tool: "exec_shell", Command: strPtr(command), CommandExact: true, Workspace: strPtr("/home/dev/repo"), Action: execpolicy.Allow}
}

// pathGrant is the record "always" writes for a file write.
func pathGrant(path string) execpolicy.Rule {
	return execpolicy.Rule{Tool: "write_file", Path: strPtr(path), Workspace: strPtr("/home/dev/repo"), Action: execpolicy.Allow}
}

const (
	shellTOML  = "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo test\"\ncommand_exact = true\nworkspace = \"/home/dev/repo\"\naction = \"allow\"\n"
	pathTOML   = "[[rules]]\ntool = \"write_file\"\npath = \"src/lib.rs\"\nworkspace = \"/home/dev/repo\"\naction = \"allow\"\n"
	shellTable = `{ tool = "exec_shell", command = "cargo test", command_exact = true, workspace = "/home/dev/repo", action = "allow" }`
	pathTable  = `{ tool = "write_file", path = "src/lib.rs", workspace = "/home/dev/repo", action = "allow" }`
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

// The file keeps every byte and gains the new records in its own style
// (docs/codewhale/execpolicy.md §1.3 "Serialization of an appended record"; docs/codewhale/pipeline.md
// §8.3 "comments preserved").
func TestAppendRulesContent(t *testing.T) {
	both := []execpolicy.Rule{shellGrant("cargo test"), pathGrant("src/lib.rs")}
	tests := []struct {
		name     string
		existing *string // nil: no file yet
		rules    []execpolicy.Rule
		want     string
		added    int
	}{
		{"new file", nil, both[:1], shellTOML, 1},
		{"new file, two rules", nil, both, shellTOML + "\n" + pathTOML, 2},
		{"empty file", strPtr(""), both[:1], shellTOML, 1},
		{"comments only", strPtr("# saved by hand\n"), both[:1], "# saved by hand\n\n" + shellTOML, 1},
		{"no trailing newline", strPtr("# saved by hand"), both[:1], "# saved by hand\n\n" + shellTOML, 1},
		{"already ends with a blank line", strPtr("# c\n\n"), both[:1], "# c\n\n" + shellTOML, 1},
		{
			"comments and odd spacing",
			strPtr("# my rules\n[[rules]]\n  tool   =  \"read_file\"   # why\npath='x'\n   \n# tail"),
			both[:1],
			"# my rules\n[[rules]]\n  tool   =  \"read_file\"   # why\npath='x'\n   \n# tail\n\n" + shellTOML, 1,
		},
		{"CRLF kept as it is", strPtr("# c\r\n[[rules]]\r\ntool = \"a\"\r\n"), both[:1], "# c\r\n[[rules]]\r\ntool = \"a\"\r\n\n" + shellTOML, 1},
		{"CRLF blank line", strPtr("[[rules]]\r\ntool = \"a\"\r\n\r\n"), both[:1], "[[rules]]\r\ntool = \"a\"\r\n\r\n" + shellTOML, 1},
		{"only the missing rule", strPtr(shellTOML), both, shellTOML + "\n" + pathTOML, 1},
		{"a repeated request is one rule", nil, []execpolicy.Rule{both[0], both[0]}, shellTOML, 1},
		{"inline, one line", strPtr("rules = [{ tool = \"a\" }]\n"), both[:1], "rules = [{ tool = \"a\" }, " + shellTable + "]\n", 1},
		{"inline, one line, trailing comma", strPtr("rules = [ { tool = \"a\" }, ] # x\n"), both, "rules = [ { tool = \"a\" }, " + shellTable + ", " + pathTable + ", ] # x\n", 2},
		{"inline, empty", strPtr("rules = []"), both[:1], "rules = [" + shellTable + "]", 1},
		{"inline, empty with blanks", strPtr("rules = [  ]\n"), both[:1], "rules = [" + shellTable + "  ]\n", 1},
		{"inline, empty, lines", strPtr("rules = [ # none yet\n]\n"), both[:1], "rules = [ # none yet\n  " + shellTable + "\n]\n", 1},
		{
			"inline, lines, trailing comma",
			strPtr("# top\nrules = [\n    { tool = \"a\" }, # first\n    { tool = \"b\" },\n]\n"),
			both,
			"# top\nrules = [\n    { tool = \"a\" }, # first\n    { tool = \"b\" },\n    " + shellTable + ",\n    " + pathTable + ",\n]\n", 2,
		},
		{
			"inline, lines, no trailing comma, comment after the last",
			strPtr("rules = [\n\t{ tool = \"a\" } # keep\n]"),
			both,
			"rules = [\n\t{ tool = \"a\" }, # keep\n\t" + shellTable + ",\n\t" + pathTable + "\n]", 2,
		},
		{
			"inline, CRLF lines",
			strPtr("rules = [\r\n  { tool = \"a\" },\r\n]\r\n"),
			both[:1],
			"rules = [\r\n  { tool = \"a\" },\n  " + shellTable + ",\r\n]\r\n", 1,
		},
		{
			"inline, bracket after the last item",
			strPtr("rules = [\n  { tool = \"a\" },\n  { tool = \"b\" }]\n"),
			both[:1],
			"rules = [\n  { tool = \"a\" },\n  { tool = \"b\" }, " + shellTable + "]\n", 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "home", ".codewhale", "permissions.toml")
			if tt.existing != nil {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				filetest.Write(t, path, *tt.existing)
			}
			added, err := AppendRules(path, tt.rules)
			if err != nil || added != tt.added {
				t.Fatalf("AppendRules = %d, %v; want %d, nil", added, err, tt.added)
			}
			got := filetest.Read(t, path)
			if got != tt.want {
				t.Errorf("content\n%q\nwant\n%q", got, tt.want)
			}
			f, problems := execpolicy.ParseFile([]byte(got))
			if !f.Accepted {
				t.Fatalf("the result does not load: %v", problems)
			}
			for _, r := range tt.rules {
				if !containsRecord(f.RuleValues(), r) {
					t.Errorf("the result lacks %s", r.Label())
				}
			}
			if m := mode(t, path); m != 0o600 {
				t.Errorf("mode %v, want 0600", m)
			}
			if m := mode(t, path+".lock"); m != 0o600 {
				t.Errorf("lock file mode %v, want 0600", m)
			}
			if tt.existing == nil {
				if m := mode(t, filepath.Dir(path)); m != 0o700 {
					t.Errorf("created directory mode %v, want 0700", m)
				}
			}
			if names := filetest.Names(t, filepath.Dir(path)); !slices.Equal(names, []string{"permissions.toml", "permissions.toml.lock"}) {
				t.Errorf("directory holds %v", names)
			}
		})
	}
}

// A record identical in all six fields is skipped and the file is not
// rewritten (docs/codewhale/execpolicy.md §1.3: "if nothing new remains the file is not
// touched").
func TestAppendRulesNothingNew(t *testing.T) {
	existing := "# keep\n" + shellTOML + "\n" + pathTOML
	path := filepath.Join(t.TempDir(), "permissions.toml")
	filetest.Write(t, path, existing)
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	added, err := AppendRules(path, []execpolicy.Rule{pathGrant("src/lib.rs"), shellGrant("cargo test")})
	if err != nil || added != 0 {
		t.Fatalf("AppendRules = %d, %v; want 0, nil", added, err)
	}
	after, _ := os.Stat(path)
	if got := filetest.Read(t, path); got != existing {
		t.Errorf("content changed:\n%q", got)
	}
	if !after.ModTime().Equal(past) || !os.SameFile(before, after) || after.Mode().Perm() != 0o640 {
		t.Errorf("the file was rewritten: mtime %v, same inode %v, mode %v", after.ModTime(), os.SameFile(before, after), after.Mode().Perm())
	}
}

// Near-identical records are different records (absent differs from "",
// byte-exact compare): each is added.
func TestAppendRulesNearDuplicates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "permissions.toml")
	filetest.Write(t, path, shellTOML)
	variants := []execpolicy.Rule{shellGrant("cargo test "), shellGrant("Cargo test")}
	notExact := shellGrant("cargo test")
	notExact.CommandExact = false
	variants = append(variants, notExact)
	added, err := AppendRules(path, variants)
	if err != nil || added != len(variants) {
		t.Fatalf("AppendRules = %d, %v; want %d, nil", added, err, len(variants))
	}
}

func TestAppendRulesNoRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "permissions.toml")
	if added, err := AppendRules(path, nil); added != 0 || err != nil {
		t.Fatalf("AppendRules(nil) = %d, %v", added, err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("nothing to save created %s: %v", filepath.Dir(path), err)
	}
}

// A file Codewhale would refuse to load is never rewritten (docs/codewhale/pipeline.md
// §8.3; docs/codewhale/execpolicy.md §7: the whole file is rejected).
func TestAppendRulesBrokenFileUntouched(t *testing.T) {
	for _, broken := range []string{
		"[[rules]\ntool = \"a\"\n",
		"[[rules]]\ntool = \"a\"\ntool = \"b\"\n",
		"version = 1\n",
		"[[rules]]\ncommand = \"ls\"\n",
		"[[rules]]\ntool = \"a\"\naction = \"Deny\"\n",
		"rules = \"all\"\n",
		"\xff\xfe",
	} {
		t.Run(fmt.Sprintf("%q", broken), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "permissions.toml")
			filetest.Write(t, path, broken)
			added, err := AppendRules(path, []execpolicy.Rule{shellGrant("ls")})
			if err == nil || added != 0 {
				t.Fatalf("AppendRules = %d, %v; want an error", added, err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("the error does not name the file: %v", err)
			}
			if got := filetest.Read(t, path); got != broken {
				t.Errorf("the broken file changed: %q", got)
			}
		})
	}
}

// A rule that would not read back as itself (invalid UTF-8 becomes U+FFFD
// in TOML) fails the check before the rename: nothing is written.
func TestAppendRulesUnfaithfulRuleNotWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "permissions.toml")
	filetest.Write(t, path, "# keep\n")
	added, err := AppendRules(path, []execpolicy.Rule{shellGrant("ls \xff")})
	if err == nil || added != 0 {
		t.Fatalf("AppendRules = %d, %v; want an error", added, err)
	}
	if got := filetest.Read(t, path); got != "# keep\n" {
		t.Errorf("content changed: %q", got)
	}
	if names := filetest.Names(t, dir); !slices.Equal(names, []string{"permissions.toml", "permissions.toml.lock"}) {
		t.Errorf("directory holds %v", names)
	}
}

func TestAppendRulesReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only directories; gate/policyfile TestRewriteInstallFails covers the failed write")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "permissions.toml")
	filetest.Write(t, path, "# keep\n")
	filetest.Write(t, path+".lock", "")
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	added, err := AppendRules(path, []execpolicy.Rule{shellGrant("ls")})
	if err == nil || added != 0 || !strings.Contains(err.Error(), path) {
		t.Fatalf("AppendRules = %d, %v; want an error naming %s", added, err, path)
	}
	if got := filetest.Read(t, path); got != "# keep\n" {
		t.Errorf("content changed: %q", got)
	}
	if names := filetest.Names(t, dir); !slices.Equal(names, []string{"permissions.toml", "permissions.toml.lock"}) {
		t.Errorf("directory holds %v", names)
	}
}

// isSubsequence reports whether every byte of old appears in new, in order.
func isSubsequence(old, new string) bool {
	i := 0
	for j := 0; i < len(old) && j < len(new); j++ {
		if old[i] == new[j] {
			i++
		}
	}
	return i == len(old)
}

// Whatever file Codewhale accepts, the new content keeps all of it and
// loads with the rule added.
func FuzzAppendedContent(f *testing.F) {
	for _, seed := range []string{
		"", "# c", shellTOML, "rules = []", "rules = [ # x\n]\n", "rules = [\r\n{tool=\"a\"} # y\r\n,\r\n]",
		"rules = [{ tool = \"a\" },]", "[[rules]]\r\ntool = 'x'", "\"rules\" = [ { tool = \"a\", action = { allow = {} } } ]",
		"rules = [\n  {tool=\"]\"}, # ]\n]",
	} {
		f.Add(seed, "exec_shell", "cargo test", true, "", "/repo")
	}
	f.Fuzz(func(t *testing.T, src, tool, command string, exact bool, path, workspace string) {
		rule := execpolicy.Rule{Tool: tool, Command: strPtr(command), CommandExact: exact, Workspace: strPtr(workspace), Action: execpolicy.Allow}
		if path != "" {
			rule.Path = strPtr(path)
		}
		content, added, err := appendedContent([]byte(src), []execpolicy.Rule{rule})
		file, _ := execpolicy.ParseFile([]byte(src))
		faithful := true
		for _, s := range []string{tool, command, path, workspace} {
			faithful = faithful && utf8.ValidString(s)
		}
		switch {
		case err != nil && file.Accepted && faithful:
			t.Fatalf("an accepted file could not take the rule: %v\n%q", err, src)
		case err != nil:
			return
		case added == 0:
			if content != nil || !containsRecord(file.RuleValues(), rule) {
				t.Fatalf("nothing added, yet content %q or rule missing", content)
			}
		case !isSubsequence(src, string(content)):
			t.Fatalf("bytes of the file were lost:\n%q\n%q", src, content)
		}
	})
}
