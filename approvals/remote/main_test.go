package remote

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(dialAsChild); path != "" {
		os.Exit(dialAndReport(path))
	}
	if os.Getenv(idleAsChild) != "" {
		os.Exit(idleUntilStdinCloses())
	}
	goleak.VerifyTestMain(m)
}
