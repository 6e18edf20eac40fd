package transport

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind: the
// batching writer's flush loop must end when the writer is closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
