package release_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Detection's child processes and their pipes' goroutines must end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
