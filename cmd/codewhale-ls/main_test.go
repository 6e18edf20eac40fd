package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codewhale-ls/codewhale-ls/internal/fakecodewhale"
)

// home writes a Codewhale home with the given permissions.toml and returns
// the config path.
func home(t *testing.T, config, permissions string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if permissions != "" {
		if err := os.WriteFile(filepath.Join(dir, "permissions.toml"), []byte(permissions), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestAuthorize(t *testing.T) {
	cfg := home(t, "", "[[rules]]\ntool = \"exec_shell\"\ncommand = \"cargo publish\"\naction = \"deny\"\n")
	ws := t.TempDir()
	code, out, errOut := runCLI(t, `{"tool":"bash","input":{"command":"cargo publish"},"callId":"c1"}`, "authorize", "--config", cfg, "--workspace", ws)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if d["decision"] != "deny" || d["layer"] != float64(5) || d["rule"] != "cargo publish" || d["callId"] != "c1" {
		t.Errorf("decision = %v", d)
	}
	if trace, _ := d["trace"].([]any); len(trace) != 5 {
		t.Errorf("trace has %d entries, want one per layer that ran (5)", len(trace))
	}
}

func TestAuthorizeBadRequest(t *testing.T) {
	cfg := home(t, "", "")
	for _, c := range []struct{ in, field string }{
		{`{"tool":5,"input":{}}`, `"tool"`},
		{`{"tool":"bash"}`, `"input"`},
		{`{"tool":"bash","input":{},"posture":"yolo"}`, `"posture"`},
		{`{"tool":"bash","input":{},"extra":1}`, `"extra"`},
		{`not json`, "not a JSON object"},
	} {
		code, out, errOut := runCLI(t, c.in, "authorize", "--config", cfg, "--workspace", t.TempDir())
		if code != 1 || out != "" {
			t.Errorf("%s: exit %d, stdout %q", c.in, code, out)
		}
		var e map[string]string
		if err := json.Unmarshal([]byte(strings.TrimSpace(errOut)), &e); err != nil || !strings.Contains(e["error"], c.field) {
			t.Errorf("%s: stderr %q should be a one-line JSON error naming %s", c.in, errOut, c.field)
		}
	}
}

func TestAuthorizeBrokenPermissionsDenies(t *testing.T) {
	cfg := home(t, "", "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n")
	code, out, _ := runCLI(t, `{"tool":"read","input":{"path":"README.md"}}`, "authorize", "--config", cfg, "--workspace", t.TempDir())
	if code != 0 || !strings.Contains(out, `"decision": "deny"`) || !strings.Contains(out, "Failed to parse permissions file") {
		t.Errorf("exit %d, out %s", code, out)
	}
}

func TestExplain(t *testing.T) {
	cfg := home(t, "", "")
	code, out, errOut := runCLI(t, "", "explain", "--config", cfg, "--workspace", t.TempDir(), "--mode", "plan", "bash", "--command", "ls")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "=> 2 admission") || !strings.Contains(out, "3 hooks        -       not reached") || !strings.Contains(out, "decision: deny by layer 2") {
		t.Errorf("explain output:\n%s", out)
	}
	if code, _, _ := runCLI(t, "", "explain", "--config", cfg, "bash"); code != 1 {
		t.Errorf("explain without input: exit %d, want 1", code)
	}
}

func TestCheckExitCodesAndFormats(t *testing.T) {
	bad := home(t, "", "[[rules]]\ntool = \"exec_shell\"\nacton = \"deny\"\n")
	ws := t.TempDir()
	code, out, _ := runCLI(t, "", "check", "--config", bad, "--workspace", ws)
	if code != 3 || !strings.Contains(out, "permissions.toml:3:1: error CW002") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "check", "--config", bad, "--workspace", ws, "--format", "json")
	var report struct {
		Files []struct {
			Path        string
			Diagnostics []struct {
				Code  string
				Range struct{ Start struct{ Line, Character int } }
			}
		}
		Summary struct{ Errors int }
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || code != 3 || report.Summary.Errors == 0 {
		t.Fatalf("json: exit %d err %v\n%s", code, err, out)
	}
	found := false
	for _, f := range report.Files {
		if filepath.Base(f.Path) != "permissions.toml" {
			continue
		}
		for _, d := range f.Diagnostics {
			found = found || d.Code == "CW002" && d.Range.Start.Line == 2 && d.Range.Start.Character == 0
		}
	}
	if !found {
		t.Errorf("json report lacks CW002 at 2:0 in permissions.toml:\n%s", out)
	}
	code, out, _ = runCLI(t, "", "check", "--config", bad, "--workspace", ws, "--format", "sarif")
	if code != 3 || !strings.Contains(out, `"version": "2.1.0"`) || !strings.Contains(out, `"ruleId": "CW002"`) {
		t.Errorf("sarif: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "check", "--config", bad, "--workspace", ws, "--format", "github", "--fail-level", "none")
	if code != 0 || !strings.HasPrefix(out, "::notice title=codewhale-ls::checking against Codewhale 0.10.1 behaviour") || !strings.Contains(out, "\n::error file=") {
		t.Errorf("github: exit %d\n%s", code, out)
	}
	warn := home(t, "modle = \"x\"\n", "")
	if code, _, _ := runCLI(t, "", "check", "--config", warn, "--workspace", ws, "--fail-level", "warning"); code != 2 {
		t.Errorf("warnings at fail level warning: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, "", "check", "--config", warn, "--workspace", ws); code != 0 {
		t.Errorf("warnings at fail level error: exit %d, want 0", code)
	}
	if code, _, _ := runCLI(t, "", "check", "--format", "xml"); code != 1 {
		t.Errorf("bad format: exit %d, want 1", code)
	}
}

func TestVersion(t *testing.T) {
	_, out, _ := runCLI(t, "", "version")
	if !strings.Contains(out, "Codewhale 0.9.10") || !strings.Contains(out, "75dca2cf") {
		t.Errorf("version: %q", out)
	}
}

// fakeCodewhaleOnPath puts a `codewhale` printing version first on PATH.
func fakeCodewhaleOnPath(t *testing.T, version string) string {
	t.Helper()
	dir := fakecodewhale.Printing(t, version)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return filepath.Join(dir, "codewhale")
}

// check says which Codewhale behaviour it checks against and why, in
// every format.
func TestCheckCodewhaleVersion(t *testing.T) {
	bin := fakeCodewhaleOnPath(t, "0.11.0")
	cfg := home(t, "", "")
	ws := t.TempDir()
	_, out, _ := runCLI(t, "", "check", "--config", cfg, "--workspace", ws)
	first, _, _ := strings.Cut(out, "\n")
	if want := "checking against Codewhale 0.10.1 behaviour (Codewhale 0.11.0, detected at " + bin + " (0.11.0)); unsupported newer release: codewhale-ls implements 0.9.10, 0.10.0, 0.10.1"; first != want {
		t.Errorf("detected: first line\n %q\nwant\n %q", first, want)
	}
	if !strings.Contains(out, "config.toml:1:1: info CW900 Codewhale 0.11.0 (detected at "+bin) {
		t.Errorf("detected 0.11.0: no CW900 on config.toml\n%s", out)
	}
	_, out, _ = runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--codewhale-version", "0.9.10")
	if first, _, _ := strings.Cut(out, "\n"); first != "checking against Codewhale 0.9.10 behaviour (Codewhale 0.9.10, --codewhale-version)" {
		t.Errorf("flag: first line %q", first)
	}
	if strings.Contains(out, "CW900") {
		t.Errorf("--codewhale-version 0.9.10: CW900 reported\n%s", out)
	}
	_, out, _ = runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--format", "json")
	var report struct{ Codewhale map[string]string }
	if err := json.Unmarshal([]byte(out), &report); err != nil || report.Codewhale["release"] != "0.11.0" || report.Codewhale["behaviour"] != "0.10.1" || report.Codewhale["note"] != "unsupported newer release" {
		t.Errorf("json codewhale = %v, %v", report.Codewhale, err)
	}
	_, out, _ = runCLI(t, "", "check", "--config", cfg, "--workspace", ws, "--format", "sarif")
	var sarif struct {
		Runs []struct {
			Properties struct{ Codewhale map[string]string }
		}
	}
	if err := json.Unmarshal([]byte(out), &sarif); err != nil || len(sarif.Runs) != 1 || sarif.Runs[0].Properties.Codewhale["release"] != "0.11.0" {
		t.Errorf("sarif run properties = %+v, %v", sarif, err)
	}
	for _, cmd := range [][]string{
		{"check", "--config", cfg, "--workspace", ws},
		{"authorize", "--config", cfg, "--workspace", ws},
		{"explain", "read_file", "--path", "a", "--config", cfg, "--workspace", ws},
		{"serve"},
	} {
		code, _, errOut := runCLI(t, "{}", append(cmd, "--codewhale-version", "latest")...)
		if code != 1 || !strings.Contains(errOut, `--codewhale-version: \"latest\" is not a Codewhale release`) && !strings.Contains(errOut, `--codewhale-version: "latest" is not a Codewhale release`) {
			t.Errorf("%s with a bad --codewhale-version: exit %d, stderr %s", cmd[0], code, errOut)
		}
	}
}

func TestExplainNamesCodewhaleRelease(t *testing.T) {
	fakeCodewhaleOnPath(t, "0.10.1")
	cfg := home(t, "", "")
	_, out, errOut := runCLI(t, "", "explain", "read_file", "--path", "a", "--config", cfg, "--workspace", t.TempDir(), "--codewhale-version", "0.9.13")
	if first, _, _ := strings.Cut(out, "\n"); first != "as Codewhale 0.9.10 behaviour (Codewhale 0.9.13, --codewhale-version); not implemented itself, so read as the implemented release before it, without the changes it brought: codewhale-ls implements 0.9.10, 0.10.0, 0.10.1" {
		t.Errorf("explain: first line %q (stderr %s)", first, errOut)
	}
}

// The same file and call under 0.9.10 and 0.10.1: explain shows the
// different decisions and names the release change behind the newer one.
func TestExplainNamesTheReleaseChange(t *testing.T) {
	cfg := home(t, "", "[[rules]]\ntool = \"exec_shell\"\ncommand = \"dd * of=/dev/sda\"\naction = \"deny\"\n")
	ws := t.TempDir()
	explain := func(version string) string {
		code, out, errOut := runCLI(t, "", "explain", "--config", cfg, "--workspace", ws, "--codewhale-version", version,
			"--posture", "full-access", "bash", "--command", "dd if=/dev/zero of=/dev/sda")
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %s", version, code, errOut)
		}
		return out
	}
	const change = "changed in Codewhale 0.10.0 (A.3.4): "
	if out := explain("0.9.10"); !strings.Contains(out, "decision: allow") || strings.Contains(out, "changed in Codewhale") {
		t.Errorf("0.9.10:\n%s", out)
	}
	if out := explain("0.10.1"); !strings.Contains(out, "decision: deny by layer 5") || !strings.Contains(out, change) {
		t.Errorf("0.10.1:\n%s", out)
	}
}

// Every subcommand answers --help and -h on standard output with its
// usage, flags and an example, and exits 0; an agent's hook never does,
// since its answer is the agent's (a deny in the agent's form).
func TestEverySubcommandHasHelp(t *testing.T) {
	for cmd, want := range commandHelp {
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}} {
			var stdout, stderr bytes.Buffer
			if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 || stdout.String() != want {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
			}
			if !strings.HasPrefix(want, "usage: codewhale-ls "+cmd) {
				t.Errorf("%s's help does not start with its usage: %q", cmd, want)
			}
			if cmd != "version" && !strings.Contains(want, "\nexample: ") {
				t.Errorf("%s's help has no example", cmd)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"hook", "install", "--help"}, strings.NewReader(""), &stdout, &stderr); code != 0 || stdout.String() != commandHelp["hook"] {
		t.Errorf("hook install --help: exit %d, %q", code, stdout.String())
	}
	stdout.Reset()
	code := run([]string{"hook", "claude-code", "--help"}, strings.NewReader(`{}`), &stdout, &stderr)
	if code != 0 || !strings.Contains(stdout.String(), `"permissionDecision":"deny"`) || !strings.Contains(stdout.String(), "unknown flag --help") {
		t.Errorf("an agent's hook given --help: exit %d, %q (want the agent's deny)", code, stdout.String())
	}
	for _, cmd := range []string{"check", "authorize", "explain", "serve", "schema"} {
		for _, name := range []string{"codewhale-version"} {
			if !strings.Contains(commandHelp[cmd], "--"+name) {
				t.Errorf("%s's help does not name --%s", cmd, name)
			}
		}
	}
}

// TestExactTurnsTheHardeningOff: `rm -fr /` past a deny of `rm -rf /`
// under Full Access is denied by the hardening layer, and allowed, as
// Codewhale allows it, with --exact, for authorize, explain and hook.
func TestExactTurnsTheHardeningOff(t *testing.T) {
	cfg := home(t, "", "[[rules]]\ntool = \"exec_shell\"\ncommand = \"rm -rf /\"\naction = \"deny\"\n")
	ws := t.TempDir()
	req := `{"tool":"bash","input":{"command":"rm -fr /"},"posture":"full-access"}`
	for exact, want := range map[bool]string{false: `"decision": "deny"`, true: `"decision": "allow"`} {
		args := []string{"authorize", "--config", cfg, "--workspace", ws, "--codewhale-version", "0.10.1"}
		if exact {
			args = append(args, "--exact")
		}
		if code, out, errOut := runCLI(t, req, args...); code != 0 || !strings.Contains(out, want) {
			t.Errorf("authorize exact=%v: exit %d, %s%s", exact, code, out, errOut)
		} else if !exact && !strings.Contains(out, "hardening: Codewhale 0.10.1 would not see this") {
			t.Errorf("the hardening layer does not name itself: %s", out)
		}
	}
	_, on, _ := runCLI(t, "", "explain", "--config", cfg, "--workspace", ws, "--codewhale-version", "0.10.1", "--posture", "full-access", "bash", "--command", "rm -fr /")
	_, off, _ := runCLI(t, "", "explain", "--config", cfg, "--workspace", ws, "--codewhale-version", "0.10.1", "--posture", "full-access", "--exact", "bash", "--command", "rm -fr /")
	if !strings.Contains(on, "decision: deny by layer 5") || !strings.Contains(on, "hardening: on") ||
		!strings.Contains(off, "decision: allow") || !strings.Contains(off, "hardening: off (--exact)") {
		t.Errorf("explain:\n%s\n--- with --exact:\n%s", on, off)
	}
	if flags, err := hookFlags([]string{"--exact", "--timeout", "5"}); err != nil || !flags.Exact {
		t.Errorf("hook --exact: exact %v, %v", flags.Exact, err)
	}
}
