package rpc

import (
	"context"
	"sync"

	"github.com/codewhale-ls/codewhale-ls/gate/release"
)

// codewhaleChoice is the session's Codewhale release (issue 10, point 1):
// --codewhale-version, else initializationOptions.codewhaleVersion, else
// the codewhale on the server's PATH, asked in the background so that no
// message waits for it.
type codewhaleChoice struct {
	mu      sync.Mutex
	settled bool
	choice  release.Choice
	// done is closed once the choice is settled: decisions wait for it,
	// so none is made as a release the user does not run.
	done chan struct{}
}

func newCodewhaleChoice() *codewhaleChoice {
	return &codewhaleChoice{done: make(chan struct{})}
}

// detecting is what status shows while `codewhale --version` runs.
var detecting = release.Choice{Behaviour: release.Newest().Version, Source: "detecting: codewhale --version is running"}

// current is the choice, or detecting while it is not settled.
func (c *codewhaleChoice) current() release.Choice {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.settled {
		return detecting
	}
	return c.choice
}

func (c *codewhaleChoice) settle(choice release.Choice) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settled {
		return
	}
	c.choice, c.settled = choice, true
	close(c.done)
}

// wait returns the settled choice; false when ctx ends first (detection
// is bounded by release.DetectTimeout, so only a cancel or the session's
// end does that).
func (c *codewhaleChoice) wait(ctx context.Context) (release.Choice, bool) {
	select {
	case <-c.done:
		return c.current(), true
	case <-ctx.Done():
		return release.Choice{}, false
	}
}

// implementation is the release snapshots load as: the settled choice,
// or, while detection runs, the newest release (what status shows then;
// decisions wait for the settled one).
func (c *codewhaleChoice) implementation() release.Release {
	return c.current().Implementation()
}

// chooseCodewhale settles s.codewhale with the release the flag or the
// option names (release.Named; "" is not given), or, when neither does,
// starts detecting it. Both were validated earlier (the CLI, and
// parseInitOptions), so Named reports no error here. s.mu must be held;
// the detection is owned by s.views.checks and ends with the session's
// lifetime.
func (s *Server) chooseCodewhale(flag, option string) {
	if choice, named, _ := release.Named(given(flag), given(option)); named {
		s.codewhale.settle(choice)
		return
	}
	pathList := s.env.Getenv("PATH")
	s.views.checks.Add(1)
	go func() {
		defer s.views.checks.Done()
		s.codewhale.settle(s.detector.Detect(s.lifetime, pathList))
		// Snapshots loaded while detecting load again as the release
		// found; CW900 and every lint depend on it: check again.
		if s.reloadPolicies() {
			s.views.scheduleChecks()
		}
	}()
}

// given is an optional string setting, where empty means not given, as
// release.Named takes it.
func given(value string) *string {
	if value == "" {
		return nil
	}
	return &value
}
