package config

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/quick"
)

// Independent restatements of the rank tables of docs/codewhale/pipeline.md §1.3/§1.4 (not
// the code's), so that the property checks the code against the spec.
func specApprovalRank(v string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "auto":
		return 0, true
	case "suggest", "suggested", "on-request", "untrusted":
		return 1, true
	case "never", "deny", "denied":
		return 2, true
	}
	return 0, false
}

func specSandboxRank(v string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "danger-full-access", "external-sandbox":
		return 0, true
	case "workspace-write":
		return 1, true
	case "read-only":
		return 2, true
	}
	return 0, false
}

var (
	approvalPool = []string{"", "", "auto", "Auto", "on-request", "untrusted", "suggest", "suggested", "never", " NEVER ", "deny",
		"denied", "full-access", "bypass", "yolo", "ask", "auto-review", "unless-trusted", "on_request"}
	sandboxPool = []string{"", "", "read-only", "Read-Only", "workspace-write", " WORKSPACE-WRITE", "danger-full-access",
		"external-sandbox", " External-Sandbox ", "none", "readonly"}
	savedPool = []string{"", "ask", "auto-review", "full-access", "never", "bogus"}
)

// overlayCase is one random user configuration and project overlay. Shell
// values: 0 unset, 1 true, 2 false (3, project only: the string "false").
type overlayCase struct {
	UserApproval, UserSandbox string
	UserShell                 int
	ViaEnv                    bool // user values come from CODEWHALE_* instead of config.toml
	Saved                     string
	ProjApproval, ProjSandbox string
	ProjShell                 int
}

func pick(r *rand.Rand, pool []string) string {
	if r.Intn(8) == 0 { // now and then an arbitrary string
		b := make([]byte, r.Intn(6))
		for i := range b {
			b[i] = "aeiounrd- "[r.Intn(10)]
		}
		return string(b)
	}
	return pool[r.Intn(len(pool))]
}

func (overlayCase) Generate(r *rand.Rand, _ int) reflect.Value {
	return reflect.ValueOf(overlayCase{
		UserApproval: pick(r, approvalPool), UserSandbox: pick(r, sandboxPool), UserShell: r.Intn(3), ViaEnv: r.Intn(3) == 0,
		Saved:        savedPool[r.Intn(len(savedPool))],
		ProjApproval: pick(r, approvalPool), ProjSandbox: pick(r, sandboxPool), ProjShell: r.Intn(4),
	})
}

// TestOverlayNeverLoosens: whatever the user and the project say, the
// effective approval and sandbox never rank below the user's (where it is
// ranked; the saved posture is the approval baseline when the config leaves
// it unset; an unranked or unset baseline admits only rank 2), and
// allow_shell never goes false→true (docs/codewhale/pipeline.md §1.3, §1.4).
func TestOverlayNeverLoosens(t *testing.T) {
	requireNoSystemFiles(t)
	base := t.TempDir()
	n := 0
	check := func(c overlayCase) bool {
		n++
		root := filepath.Join(base, fmt.Sprint(n))
		home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
		env := MapEnv{"HOME": home}
		var user, proj strings.Builder
		shellWord := map[int]string{1: "true", 2: "false"}
		if c.ViaEnv {
			env["CODEWHALE_APPROVAL_POLICY"] = c.UserApproval
			env["CODEWHALE_SANDBOX_MODE"] = c.UserSandbox
			if c.UserShell != 0 {
				env["CODEWHALE_ALLOW_SHELL"] = shellWord[c.UserShell]
			}
		} else {
			if c.UserApproval != "" {
				fmt.Fprintf(&user, "approval_policy = %s\n", tomlString(c.UserApproval))
			}
			if c.UserSandbox != "" {
				fmt.Fprintf(&user, "sandbox_mode = %s\n", tomlString(c.UserSandbox))
			}
			if c.UserShell != 0 {
				fmt.Fprintf(&user, "allow_shell = %s\n", shellWord[c.UserShell])
			}
		}
		writeFile(t, filepath.Join(home, ".codewhale", "config.toml"), user.String())
		if c.Saved != "" {
			writeFile(t, filepath.Join(home, ".codewhale", "settings.toml"), "permission_posture = "+tomlString(c.Saved)+"\n")
		}
		if c.ProjApproval != "" {
			fmt.Fprintf(&proj, "approval_policy = %s\n", tomlString(c.ProjApproval))
		}
		if c.ProjSandbox != "" {
			fmt.Fprintf(&proj, "sandbox_mode = %s\n", tomlString(c.ProjSandbox))
		}
		switch c.ProjShell {
		case 1, 2:
			fmt.Fprintf(&proj, "allow_shell = %s\n", shellWord[c.ProjShell])
		case 3:
			proj.WriteString("allow_shell = \"false\"\n")
		}
		writeFile(t, filepath.Join(ws, ".codewhale", "config.toml"), proj.String())
		defer os.RemoveAll(root)

		p := Load(Options{Workspace: ws, Env: env}).Policy
		fail := func(format string, args ...any) bool {
			t.Logf("%+v: "+format, append([]any{c}, args...)...)
			return false
		}

		// approval
		baseline, baselineSet := c.UserApproval, c.UserApproval != ""
		if !baselineSet {
			switch c.Saved {
			case "ask":
				baseline, baselineSet = "on-request", true
			case "auto-review", "full-access":
				baseline, baselineSet = "auto", true
			}
		}
		floor := 2
		if r, ok := specApprovalRank(baseline); baselineSet && ok {
			floor = r
		}
		if p.ApprovalPolicy.Source == "project config" {
			if r, ok := specApprovalRank(p.ApprovalPolicy.Value); !ok || r < floor {
				return fail("project approval %q applied over baseline %q (floor %d)", p.ApprovalPolicy.Value, baseline, floor)
			}
		} else if p.ApprovalPolicy.Value != c.UserApproval || p.ApprovalPolicy.Set != (c.UserApproval != "") {
			return fail("approval %+v is not the user's %q", p.ApprovalPolicy, c.UserApproval)
		}
		if ur, ok := specApprovalRank(c.UserApproval); ok && c.UserApproval != "" {
			if er, ok := specApprovalRank(p.ApprovalPolicy.Value); !ok || er < ur {
				return fail("approval loosened from %q to %q", c.UserApproval, p.ApprovalPolicy.Value)
			}
		}

		// sandbox
		sfloor := 2
		if r, ok := specSandboxRank(c.UserSandbox); c.UserSandbox != "" && ok {
			sfloor = r
		}
		if p.SandboxMode.Source == "project config" {
			r, ok := specSandboxRank(p.SandboxMode.Value)
			if !ok || r < sfloor {
				return fail("project sandbox %q applied over %q", p.SandboxMode.Value, c.UserSandbox)
			}
			ext := func(v string) bool { return strings.ToLower(strings.TrimSpace(v)) == "external-sandbox" }
			if ext(p.SandboxMode.Value) && !ext(c.UserSandbox) {
				return fail("external-sandbox applied over %q", c.UserSandbox)
			}
		} else if p.SandboxMode.Value != c.UserSandbox || p.SandboxMode.Set != (c.UserSandbox != "") {
			return fail("sandbox %+v is not the user's %q", p.SandboxMode, c.UserSandbox)
		}

		// shell: never false→true, and true only when the user said so
		if c.UserShell == 2 && (!p.AllowShell.Set || p.AllowShell.Value) {
			return fail("allow_shell %+v after user false", p.AllowShell)
		}
		if p.AllowShell.Value && c.UserShell != 1 {
			return fail("allow_shell true without the user")
		}
		if c.ProjShell == 2 && (p.AllowShell.Value || !p.Overlay.ShellOff) {
			return fail("project allow_shell = false not applied: %+v", p.AllowShell)
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 200, Rand: rand.New(rand.NewSource(1))}); err != nil {
		t.Error(err)
	}
}
