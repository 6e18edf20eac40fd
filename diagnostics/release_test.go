package diagnostics

import (
	"testing"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

func TestLintRelease(t *testing.T) {
	newer, _ := release.Requested("0.11.0", "detected at /bin/codewhale (0.11.0)")
	exact, _ := release.Requested("0.9.10", "--codewhale-version")
	for _, tc := range []struct {
		name    string
		against release.Choice
		want    bool
	}{
		{"newer release", newer, true},
		{"implemented release", exact, false},
		{"none found", release.Default("no codewhale on PATH"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user := &FileResult{Kind: config.KindUserConfig, Src: []byte("model = \"x\"\nsandbox_mode = \"read-only\"\n")}
			perms := &FileResult{Kind: config.KindPermissions, Src: []byte("x\n")}
			lintRelease(tc.against, []*FileResult{perms, user})
			if len(perms.Problems) != 0 {
				t.Errorf("permissions.toml got %v", perms.Problems)
			}
			if !tc.want {
				if len(user.Problems) != 0 {
					t.Errorf("config.toml got %v", user.Problems)
				}
				return
			}
			if len(user.Problems) != 1 {
				t.Fatalf("config.toml got %v", user.Problems)
			}
			p := user.Problems[0]
			want := "Codewhale 0.11.0 (detected at /bin/codewhale (0.11.0)): unsupported newer release; codewhale-ls reproduces Codewhale 0.10.1 and checks against that (implemented: 0.9.10, 0.10.0, 0.10.1)"
			if p.Code != "CW900" || p.Severity != problem.Info || p.Span != (problem.Span{Start: 0, End: 11}) || p.Message != want {
				t.Errorf("got %+v", p)
			}
		})
	}
}
