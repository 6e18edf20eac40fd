package approvals

import (
	"sync"
	"time"
)

// Session is whose session an answer "for this session" belongs to: the
// agent that asked ("" for the editor's own agent) and that agent's own
// session id as its hook event names it ("" when it names none, and
// always for the editor's own agent, whose session is the editor's). An
// answer given to one Session never decides a call of another: a grant
// to one Claude Code session lets neither Codex nor another Claude Code
// session run the same command unasked (docs/agents.md, "Grants belong
// to the agent that asked").
type Session struct {
	Agent string
	ID    string
}

// Sessions holds the answers that outlive one call for the server's
// lifetime, per Session, keyed as Codewhale keys them
// (docs/codewhale/pipeline.md §8.2, §8.3): "approve for session" adds the
// keys the card's release grants (the tool name and the grouping key in
// 0.9.10, the grouping key alone since 0.10.0: gate.Prompt.SessionGrants)
// to the session's approved set; "deny" adds the exact approval key to
// its denied set. For reads the gate.Sessions layer 8 reads is Of(session).
type Sessions struct {
	mu sync.RWMutex
	of map[Session]*answers
}

// answers are one Session's approved grant keys, with when each was
// first granted (for the receipts of the calls they allow), and its
// denied exact keys.
type answers struct {
	approved map[string]time.Time
	denied   map[string]bool
}

// NewSessions returns sessions with no answers.
func NewSessions() *Sessions {
	return &Sessions{of: map[Session]*answers{}}
}

// Of is what layer 8 knows of session's earlier answers: only its own.
// It remembers when the first grant it found was given (GrantedAt), so
// use one per decision.
func (s *Sessions) Of(session Session) *SessionView {
	return &SessionView{sessions: s, session: session}
}

// Approved reports whether key was granted for session.
func (s *Sessions) Approved(session Session, key string) bool {
	_, ok := s.grantedAt(session, key)
	return ok
}

// grantedAt is when key was granted for session, if it was.
func (s *Sessions) grantedAt(session Session, key string) (time.Time, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a := s.of[session]
	if a == nil {
		return time.Time{}, false
	}
	at, ok := a.approved[key]
	return at, ok
}

// Denied reports whether session's user denied the exact call earlier.
func (s *Sessions) Denied(session Session, exactKey string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a := s.of[session]
	return a != nil && a.denied[exactKey]
}

// Approve records an "approve for session" answer to session granting keys.
func (s *Sessions) Approve(session Session, keys ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.answersOf(session)
	now := time.Now()
	for _, k := range keys {
		if _, ok := a.approved[k]; !ok {
			a.approved[k] = now
		}
	}
}

// Deny records a user's "deny" to session: the same exact call of that
// session is denied without a prompt from now on.
func (s *Sessions) Deny(session Session, exactKey string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answersOf(session).denied[exactKey] = true
}

// answersOf is session's answers, made empty on first use; s.mu is held.
func (s *Sessions) answersOf(session Session) *answers {
	a := s.of[session]
	if a == nil {
		a = &answers{approved: map[string]time.Time{}, denied: map[string]bool{}}
		s.of[session] = a
	}
	return a
}

// SessionView is Sessions seen from one Session, for one decision
// (gate.Sessions). Layer 8 asks about the grants of the call's release
// first (gate's dispose), so the first grant it finds is the one that
// allowed the call; GrantedAt says when it was given. A decision runs on
// one goroutine, so the view needs no lock of its own.
type SessionView struct {
	sessions *Sessions
	session  Session
	found    time.Time
}

// Approved reports whether key was granted to the view's session.
func (v *SessionView) Approved(key string) bool {
	at, ok := v.sessions.grantedAt(v.session, key)
	if ok && v.found.IsZero() {
		v.found = at
	}
	return ok
}

// Denied reports whether the view's session denied the exact call.
func (v *SessionView) Denied(exactKey string) bool {
	return v.sessions.Denied(v.session, exactKey)
}

// GrantedAt is when the first grant Approved found was given; zero when
// it found none.
func (v *SessionView) GrantedAt() time.Time { return v.found }
