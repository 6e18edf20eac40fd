package approvals

import "sync"

// Sessions holds the answers that outlive one call for the server's
// lifetime, keyed as Codewhale keys them (docs/codewhale/pipeline.md §8.2, §8.3):
// "approve for session" adds the keys the card's release grants (the tool
// name and the grouping key in 0.9.10, the grouping key alone since
// 0.10.0: gate.Prompt.SessionGrants) to one approved set; "deny" adds the
// exact approval key to the denied set. It is the gate.Sessions layer 8
// reads.
type Sessions struct {
	mu       sync.RWMutex
	approved map[string]bool
	denied   map[string]bool
}

// NewSessions returns an empty session.
func NewSessions() *Sessions {
	return &Sessions{approved: map[string]bool{}, denied: map[string]bool{}}
}

// Approved reports whether key was granted for the session.
func (s *Sessions) Approved(key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.approved[key]
}

// Denied reports whether the exact call was denied earlier.
func (s *Sessions) Denied(exactKey string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.denied[exactKey]
}

// Approve records an "approve for session" answer granting keys.
func (s *Sessions) Approve(keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		s.approved[k] = true
	}
}

// Deny records a user's "deny": the same exact call is denied without a
// prompt from now on.
func (s *Sessions) Deny(exactKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.denied[exactKey] = true
}
