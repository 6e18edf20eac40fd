package watch_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine the watcher starts must end by the time Close returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
