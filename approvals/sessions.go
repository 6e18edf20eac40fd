package approvals

import (
	"sync"

	"github.com/codewhale-ls/codewhale-ls/gate"
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

// answers are one Session's approved grant keys and denied exact keys.
type answers struct {
	approved map[string]bool
	denied   map[string]bool
}

// NewSessions returns sessions with no answers.
func NewSessions() *Sessions {
	return &Sessions{of: map[Session]*answers{}}
}

// Of is what layer 8 knows of session's earlier answers: only its own.
func (s *Sessions) Of(session Session) gate.Sessions {
	return sessionView{s, session}
}

// Approved reports whether key was granted for session.
func (s *Sessions) Approved(session Session, key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a := s.of[session]
	return a != nil && a.approved[key]
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
	for _, k := range keys {
		a.approved[k] = true
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
		a = &answers{approved: map[string]bool{}, denied: map[string]bool{}}
		s.of[session] = a
	}
	return a
}

// sessionView is Sessions seen from one Session (gate.Sessions).
type sessionView struct {
	sessions *Sessions
	session  Session
}

func (v sessionView) Approved(key string) bool { return v.sessions.Approved(v.session, key) }
func (v sessionView) Denied(exactKey string) bool {
	return v.sessions.Denied(v.session, exactKey)
}
