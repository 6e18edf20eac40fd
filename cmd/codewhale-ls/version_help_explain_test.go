package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
)

// version says what the binary was built from, and keeps the releases
// it reproduces (issue 24, point 11).
func TestVersionSaysTheBuild(t *testing.T) {
	code, out, _ := runCLI(t, "", "version")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) < 3 || lines[0] != "codewhale-ls "+buildinfo.Version() ||
		lines[1] != buildinfo.Read().Line() || !strings.HasSuffix(lines[1], "built with "+runtime.Version()+" for "+runtime.GOOS+"/"+runtime.GOARCH) ||
		lines[2] != "reproduces Codewhale 0.9.10 (commit 75dca2cf)" {
		t.Errorf("version: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "", "version", "--yaml"); code != 1 || !strings.Contains(errOut, "unknown flag --yaml") {
		t.Errorf("version --yaml: exit %d, stderr %s", code, errOut)
	}
}

// versionJSON is `version --json`'s object as the conventions of issue 27
// fix it; unknown fields are an error, so a field added is a field
// documented.
type versionJSON struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	Go        string `json:"go"`
	Modified  *bool  `json:"modified"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	Codewhale []struct {
		Version string `json:"version"`
		Commit  string `json:"commit"`
	} `json:"codewhale"`
}

func decodeVersionJSON(t *testing.T, out string) versionJSON {
	t.Helper()
	var v versionJSON
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("version --json: %v\n%s", err, out)
	}
	if v.Modified == nil || v.Go == "" || v.OS == "" || v.Arch == "" || len(v.Codewhale) != len(release.Implemented) {
		t.Errorf("version --json misses a field:\n%s", out)
	}
	for i, r := range release.Implemented {
		if i < len(v.Codewhale) && (v.Codewhale[i].Version != r.Version || v.Codewhale[i].Commit != r.Commit) {
			t.Errorf("codewhale[%d] = %+v, want %s %s", i, v.Codewhale[i], r.Version, r.Commit)
		}
	}
	return v
}

func TestVersionJSON(t *testing.T) {
	code, out, errOut := runCLI(t, "", "version", "--json")
	if code != 0 {
		t.Fatalf("version --json: exit %d\n%s", code, errOut)
	}
	v := decodeVersionJSON(t, out)
	info := buildinfo.Read()
	if v.Version != info.Version || v.Commit != info.Commit || v.Date != info.Date || v.Go != runtime.Version() ||
		*v.Modified != info.Modified || v.OS != runtime.GOOS || v.Arch != runtime.GOARCH {
		t.Errorf("version --json = %+v, want %+v", v, info)
	}
}

// A release build's -ldflags -X stamps are what the built binary says.
func TestVersionStampedBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "codewhale-ls")
	const pkg = "github.com/codewhale-ls/codewhale-ls/internal/buildinfo"
	commit := strings.Repeat("0123456789", 4)
	ldflags := "-X " + pkg + ".version=9.8.7-rc.1 -X " + pkg + ".commit=" + commit + " -X " + pkg + ".date=2026-12-06T08:00:00Z"
	if out, err := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("version --json: %v", err)
	}
	v := decodeVersionJSON(t, string(out))
	if v.Version != "9.8.7-rc.1" || v.Commit != commit || v.Date != "2026-12-06T08:00:00Z" || v.Go != runtime.Version() {
		t.Errorf("stamped binary says %+v", v)
	}
	text, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(text), "codewhale-ls 9.8.7-rc.1\ncommit "+commit+" (2026-12-06T08:00:00Z") {
		t.Errorf("--version: %v\n%s", err, text)
	}
}

// help COMMAND is COMMAND --help; an unknown COMMAND is a usage error.
func TestHelpCommand(t *testing.T) {
	for cmd, want := range commandHelp {
		if code, out, _ := runCLI(t, "", "help", cmd); code != 0 || out != want {
			t.Errorf("help %s: exit %d\n%s", cmd, code, out)
		}
	}
	if code, out, _ := runCLI(t, "", "help"); code != 0 || out != usage {
		t.Errorf("help: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "", "help", "nope"); code != 1 || !strings.Contains(errOut, `no command "nope"`) {
		t.Errorf("help nope: exit %d, %s", code, errOut)
	}
}

// explain names the valid TOOLs (the gate's table) and refuses another
// as a usage error rather than answering Codewhale's layer-2 deny.
func TestExplainUnknownTool(t *testing.T) {
	ws := t.TempDir()
	code, out, errOut := runCLI(t, "", "explain", "--workspace", ws, "--codewhale-version", "0.10.1", "shell", "--command", "ls")
	if code != 1 || out != "" || !strings.Contains(errOut, `"shell" is no Codewhale tool`) {
		t.Errorf("explain shell: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, name := range gate.BuiltinNames() {
		if !strings.Contains(errOut, " "+name+" ") && !strings.Contains(errOut, " "+name+"\n") {
			t.Errorf("the list of TOOLs lacks %s:\n%s", name, errOut)
		}
	}
	if !strings.Contains(commandHelp["explain"], " exec_shell ") {
		t.Errorf("explain's help does not list the TOOLs:\n%s", commandHelp["explain"])
	}
	for _, name := range []string{"exec_shell", "bash", "File", "read_file", "mcp_github_create_issue", "terminal/run"} {
		if code, _, errOut := runCLI(t, "", "explain", "--workspace", ws, "--codewhale-version", "0.10.1", name, "--command", "ls"); code != 0 {
			t.Errorf("explain %s: exit %d, %s", name, code, errOut)
		}
	}
}

// explain's trailers say only what changed this decision (issue 24,
// point 12): no hardening line where the hardening layer did nothing, no
// release line for a sandbox network no file tool uses, no "later layers
// that could still tighten" when every later layer already ran.
func TestExplainTrailersOnlyWhenTheyMatter(t *testing.T) {
	ws := t.TempDir()
	_, out, _ := runCLI(t, "", "explain", "--workspace", ws, "--codewhale-version", "0.10.1", "read_file", "--path", "a.txt")
	for _, s := range []string{"hardening:", "release:", "later layers that could still tighten"} {
		if strings.Contains(out, s) {
			t.Errorf("explain read_file says %q:\n%s", s, out)
		}
	}
	if !strings.Contains(out, "decision: allow by layer 4") {
		t.Errorf("explain read_file:\n%s", out)
	}
	// A shell's sandbox loses its network in 0.10.0: that is this call's.
	_, out, _ = runCLI(t, "", "explain", "--workspace", ws, "--codewhale-version", "0.10.1", "exec_shell", "--command", "cargo test")
	if !strings.Contains(out, "release: changed in Codewhale 0.10.0 (B.9.1)") || strings.Contains(out, "hardening:") {
		t.Errorf("explain exec_shell cargo test:\n%s", out)
	}
	// The hardening layer denying a hidden command says so.
	cfg := home(t, "", "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\naction = \"deny\"\n")
	_, out, _ = runCLI(t, "", "explain", "--config", cfg, "--workspace", ws, "--codewhale-version", "0.10.1", "--posture", "full-access", "bash", "--command", "rm -fr /")
	if !strings.Contains(out, "hardening: on, and it made this decision stricter") {
		t.Errorf("explain of a decision the hardening layer made:\n%s", out)
	}
}

// explain's lines say what Codewhale's words mean (issue 24, point 13;
// docs/glossary.md): cargo test is "not shown harmless", not plainly
// "risk destructive"; a requirement is a need for approval; a release
// between implemented ones says how it is read.
func TestExplainInPlainWords(t *testing.T) {
	ws := t.TempDir()
	_, out, _ := runCLI(t, "", "explain", "--workspace", ws, "--codewhale-version", "0.9.12", "exec_shell", "--command", "cargo test")
	for _, want := range []string{
		"exec_shell (exec_shell) needs explicit approval (requirement Required)",
		"action kind shell, not shown harmless (risk destructive), origin interactive",
		"(Codewhale 0.9.12, --codewhale-version); not implemented itself, so read as the implemented release before it, without the changes it brought",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain cargo test lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "requires Required") || strings.Contains(out, "release between implemented ones") {
		t.Errorf("explain cargo test in Codewhale's words:\n%s", out)
	}
}

// explain says where the rule that decided is written, as a refusal does
// (issue 24, point 8), and where a broken permissions.toml is broken.
func TestExplainSaysWhereTheRuleIs(t *testing.T) {
	ws := t.TempDir()
	cfg := home(t, "", "# my rules\n[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\naction = \"deny\"\n")
	_, out, _ := runCLI(t, "", "explain", "--config", cfg, "--workspace", ws, "--codewhale-version", "0.10.1", "bash", "--command", "git push origin main")
	perms := filepath.Join(filepath.Dir(cfg), "permissions.toml")
	if want := "where: rule at " + perms + ":2\n"; !strings.Contains(out, want) {
		t.Errorf("explain of a rule's deny lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "release:") {
		t.Errorf("explain of a call denied before it runs names a sandbox change:\n%s", out)
	}
	cfg = home(t, "", "[[rules]]\ntool = \"exec_shell\"\ncommand = \"git push\"\nacton = \"deny\"\n")
	_, out, _ = runCLI(t, "", "explain", "--config", cfg, "--workspace", ws, "--codewhale-version", "0.10.1", "bash", "--command", "ls")
	if want := "where: " + filepath.Join(filepath.Dir(cfg), "permissions.toml") + ":4: "; !strings.Contains(out, want) || !strings.Contains(out, "codewhale-ls check") {
		t.Errorf("explain under a broken permissions.toml lacks %q and the check command:\n%s", want, out)
	}
}
