package editors_test

import (
	"os"
	"os/exec"
	"testing"
)

// The VS Code extension ships the server for every platform it targets;
// every package must build there with Go alone (no cgo, no extra tools).
// -trimpath as editors/vscode/scripts/package.mjs builds, so the two share
// Go's build cache.
func TestServerCrossCompiles(t *testing.T) {
	requireCrossBuilds(t, "cross-compiling five targets")
	for _, target := range []struct{ goos, goarch string }{
		{"linux", "amd64"}, {"linux", "arm64"},
		{"darwin", "amd64"}, {"darwin", "arm64"},
		{"windows", "amd64"},
	} {
		t.Run(target.goos+"/"+target.goarch, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("go", "build", "-trimpath", "-o", os.DevNull, "../...")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+target.goos, "GOARCH="+target.goarch)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("GOOS=%s GOARCH=%s go build ./...: %v\n%s", target.goos, target.goarch, err, out)
			}
		})
	}
}
