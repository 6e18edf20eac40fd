package approvals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/policyfile"
	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/secrets"
)

// DecisionLog appends one JSON line per final decision (docs/codewhale/contract.md §4): time
// (RFC 3339 with nanoseconds, UTC), callId, tool, decision, layer,
// layerName, rule, reason, approval, agent for a call another agent made
// through `codewhale-ls hook`, and for a call a person answered, shown:
// the command (or path, pattern, URL) the card showed them, so they can
// see later what they approved. Never the rest of the input or any
// file's contents: LogEntry has no field that could hold them.
//
// Many processes write the same log at once (each agent's hook is a short
// process appending one line; each editor's server holds the log open for
// hours), so every append runs under the exclusive lock beside the log
// (path + ".lock"), reopens the log if another writer rotated it away,
// rotates it when it is full (Rotation), and writes the whole line with
// one write: no line is torn, lost, or written into a generation already
// rotated away (decisionlog_rotate.go).
type DecisionLog struct {
	path     string
	rotation Rotation
	// file is the open log; nil once closed. It changes only under the
	// lock file's flock, which orders appends of every process and
	// goroutine; atomic so that Close, which needs no flock, is no race.
	file atomic.Pointer[os.File]
}

// LogEntry is one line of the decision log.
type LogEntry struct {
	Time      time.Time      `json:"time"`
	CallID    *string        `json:"callId"`
	Tool      string         `json:"tool"`
	Decision  gate.Verdict   `json:"decision"`
	Layer     gate.Layer     `json:"layer"`
	LayerName string         `json:"layerName"`
	Rule      *string        `json:"rule"`
	Reason    string         `json:"reason"`
	Approval  *gate.Approval `json:"approval"`
	// Agent names the agent whose hook asked (docs/agents.md); absent for
	// Codewhale's own calls.
	Agent string `json:"agent,omitempty"`
	// Shown is the call's title field as its card showed it (visible
	// text, start and end of a long one) with its secrets masked (issue
	// 26), for a call answered by a person or their session grant.
	Shown string `json:"shown,omitempty"`
}

// EntryFor builds the entry of a final decision for tool, made for agent
// ("" for the editor's own).
func EntryFor(now time.Time, toolName, agent string, d gate.Decision) LogEntry {
	return LogEntry{
		Agent:     agent,
		Time:      now.UTC(),
		CallID:    d.CallID,
		Tool:      toolName,
		Decision:  d.Decision,
		Layer:     d.Layer,
		LayerName: d.LayerName,
		Rule:      d.Rule,
		Reason:    d.Reason,
		Approval:  d.Approval,
		Shown:     shownToPerson(d),
	}.maskedForLog()
}

// maskedForLog is e with every well-known secret its texts may quote (the
// command shown, a reason citing it) replaced by a placeholder naming its
// kind (gate/secrets; issue 26, "Secrets stay out"), and Shown then cut
// to shownLogBytes: masking the whole text first leaves no token cut in
// half by the cap for the mask to miss. Only what is written is masked;
// the card shows the call exactly as it will run.
func (e LogEntry) maskedForLog() LogEntry {
	e.Reason, _ = secrets.Mask(e.Reason)
	shown, _ := secrets.Mask(e.Shown)
	e.Shown = problem.Visible{}.CapShown(shown, shownLogBytes)
	return e
}

// DefaultDecisionLogPath is <codewhaleHome>/codewhale-ls/decisions.jsonl.
func DefaultDecisionLogPath(codewhaleHome string) string {
	return filepath.Join(codewhaleHome, "codewhale-ls", "decisions.jsonl")
}

// DefaultDecisionLogFor is the default log of a caller deciding with
// opts, under the Codewhale home they resolve to; "" when none is found
// (OpenRecorder then blocks every decision but a deny, saying so).
func DefaultDecisionLogFor(opts config.Options) string {
	paths, _ := config.ResolvePaths(opts)
	if paths.CodewhaleDir == "" {
		return ""
	}
	return DefaultDecisionLogPath(paths.CodewhaleDir)
}

// OpenDecisionLog opens (creating 0600, parent dirs 0700) the log at path
// for appending, rotated at DefaultRotation. It never blocks and never
// writes through a symlink: a log that is a symlink, a FIFO or anything
// but a regular file is refused.
func OpenDecisionLog(path string) (*DecisionLog, error) {
	return OpenRotatingDecisionLog(path, DefaultRotation)
}

// OpenRotatingDecisionLog is OpenDecisionLog rotated at r.
func OpenRotatingDecisionLog(path string, r Rotation) (*DecisionLog, error) {
	if path == "" {
		return nil, errors.New("the decision log has no path: no Codewhale home was found")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the directory of the decision log %s: %w", path, err)
	}
	f, err := openLogFile(path)
	if err != nil {
		return nil, err
	}
	l := &DecisionLog{path: path, rotation: r}
	l.file.Store(f)
	return l, nil
}

// openLogFile opens the log at path for appending, creating it 0600,
// never through a symlink and never blocking on a FIFO.
func openLogFile(path string) (*os.File, error) {
	f, err := policyfile.OpenNoFollow(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the decision log: %w", err)
	}
	return f, nil
}

// Append writes e as one line with a single write (O_APPEND) under the
// writers' lock, after rotating the log if the line would overflow it,
// so lines of concurrent writers, in this process or another, never
// interleave and none lands in a generation already rotated away.
func (l *DecisionLog) Append(e LogEntry) error {
	if l == nil || l.file.Load() == nil {
		return errors.New("the decision log is not open")
	}
	line, err := encodeLine(e)
	if err != nil {
		return fmt.Errorf("cannot write to the decision log %s: %w", l.path, err)
	}
	unlock, err := policyfile.LockExclusive(l.path + ".lock")
	if err != nil {
		return fmt.Errorf("cannot lock the decision log %s: %w", l.path, err)
	}
	defer unlock()
	f, size, err := l.current(int64(len(line)))
	if err != nil {
		return err
	}
	if err := writeLine(f, size, line); err != nil {
		return fmt.Errorf("cannot write to the decision log %s: %w", l.path, err)
	}
	return nil
}

// encodeLine renders e as JSON plus "\n"; reasons keep `<`, `>` and `&`
// readable rather than \u-escaped.
func encodeLine(e LogEntry) ([]byte, error) {
	e.Time = e.Time.UTC()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Close closes the log; later appends fail.
func (l *DecisionLog) Close() error {
	if l == nil {
		return nil
	}
	if f := l.file.Swap(nil); f != nil {
		return f.Close()
	}
	return nil
}

// Recorder is the decision log as the decision path sees it: like
// Codewhale's approval receipts, evidence that cannot be written blocks
// the call. A nil Recorder records nothing (the user turned the log off).
type Recorder struct {
	log *DecisionLog
	// failure is why the log could not be opened: every decision but a
	// deny is then blocked, while diagnostics go on working.
	failure error
}

// OpenRecorder opens the decision log at path ("" when no Codewhale home
// was found, which blocks every decision but a deny).
func OpenRecorder(path string) *Recorder {
	l, err := OpenDecisionLog(path)
	return &Recorder{log: l, failure: err}
}

// Failure is why no decision but a deny can run, or nil.
func (r *Recorder) Failure() error {
	if r == nil {
		return nil
	}
	return r.failure
}

// Final logs d, the final decision of req made for agent ("" for the
// editor's own), and returns it; a decision that cannot be logged turns
// into a deny saying why.
func (r *Recorder) Final(req gate.Request, agent string, d gate.Decision) gate.Decision {
	if r == nil {
		return d
	}
	err := r.failure
	if err == nil {
		err = r.log.Append(EntryFor(time.Now(), req.Tool, agent, d))
	}
	if err != nil && d.Decision != gate.Deny {
		d = blocked(d, "Decision evidence could not be committed (a decision that cannot be logged does not run); tool execution was blocked: "+err.Error())
	}
	return d
}

// Close closes the log; later decisions are blocked.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	return r.log.Close() // later appends fail, blocking their decisions
}
