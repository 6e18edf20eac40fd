package approvals

import (
	"bytes"
	"context"
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
)

// DecisionLog appends one receipt (Receipt, docs/codewhale/contract.md §4,
// "Receipts") per final decision, as one JSON line.
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

// DefaultDecisionLogPath is <codewhaleHome>/codewhale-ls/decisions.jsonl;
// "" without a Codewhale home (OpenRecorder then blocks every decision
// but a deny, saying so).
func DefaultDecisionLogPath(codewhaleHome string) string {
	if codewhaleHome == "" {
		return ""
	}
	return filepath.Join(codewhaleHome, "codewhale-ls", "decisions.jsonl")
}

// DefaultDecisionLogFor is the default log of a caller deciding with
// opts, under the Codewhale home they resolve to; "" when none is found
// (OpenRecorder then blocks every decision but a deny, saying so).
func DefaultDecisionLogFor(opts config.Options) string {
	paths, _ := config.ResolvePaths(opts)
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
func (l *DecisionLog) Append(e Receipt) error {
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
func encodeLine(e Receipt) ([]byte, error) {
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
	log     *DecisionLog
	options RecorderOptions
	// failure is why the log could not be opened: every decision but a
	// deny is then blocked, while diagnostics go on working.
	failure error
}

// RecorderOptions are how a Recorder writes its receipts.
type RecorderOptions struct {
	// Settings are the user's (LoadSettings): whether receipts keep the
	// call's input, and the log's rotation.
	Settings Settings
	// NoInputs keeps no input whatever Settings say (the editors'
	// setting: off anywhere is off).
	NoInputs bool
	// Where names where this process asks a person ("Neovim 0.12.0",
	// "the approval console"), for the receipts of answered calls.
	Where string
	// Sink also takes every receipt written (the OpenTelemetry export);
	// nil exports nothing. The Recorder owns it and closes it.
	Sink ReceiptSink
}

// OpenRecorder opens the decision log at path ("" when no Codewhale home
// was found, which blocks every decision but a deny).
func OpenRecorder(path string, o RecorderOptions) *Recorder {
	if o.Settings.Rotation == (Rotation{}) {
		o.Settings.Rotation = DefaultRotation
	}
	l, err := OpenRotatingDecisionLog(path, o.Settings.Rotation)
	return &Recorder{log: l, options: o, failure: err}
}

// NewSink makes the sink the user's export settings ask for (nil for
// none); approvals/otelexport.NewSink with the process's environment.
type NewSink func(ExportSettings) (ReceiptSink, error)

// OpenUserRecorder opens the decision log at path as the user's settings
// under codewhaleHome say (LoadSettings), exporting through newSink's
// sink. Settings that cannot be read, or a sink that cannot be made, are
// the Recorder's failure: no decision but a deny runs on receipts the
// user did not ask for.
func OpenUserRecorder(path, codewhaleHome string, o RecorderOptions, newSink NewSink) *Recorder {
	settings, err := LoadSettings(codewhaleHome)
	o.Settings = settings
	if err == nil && newSink != nil {
		o.Sink, err = newSink(settings.Export)
	}
	r := OpenRecorder(path, o)
	if err != nil {
		_ = r.log.Close()
		r.failure = err
	}
	return r
}

// Failure is why no decision but a deny can run, or nil.
func (r *Recorder) Failure() error {
	if r == nil {
		return nil
	}
	return r.failure
}

// Final writes the receipt of d, the final decision of req made for c,
// and returns d; a decision whose receipt cannot be written turns into a
// deny saying why. The receipt then goes to the sink, if any.
func (r *Recorder) Final(req gate.Request, c Caller, d gate.Decision) gate.Decision {
	if r == nil {
		return d
	}
	withInput := r.options.Settings.LogInputs && !r.options.NoInputs
	receipt := ReceiptFor(time.Now(), req, c, d, r.options.Where, withInput)
	err := r.failure
	if err == nil {
		err = r.log.Append(receipt)
	}
	if err != nil && d.Decision != gate.Deny {
		d = blocked(d, "Decision evidence could not be committed (a decision that cannot be logged does not run); tool execution was blocked: "+err.Error())
		receipt = ReceiptFor(time.Now(), req, c, d, r.options.Where, withInput)
	}
	if r.options.Sink != nil {
		r.options.Sink.Send(receipt)
	}
	return d
}

// Close closes the log, later decisions being blocked, then flushes the
// sink within ctx.
func (r *Recorder) Close(ctx context.Context) error {
	if r == nil {
		return nil
	}
	err := r.log.Close() // later appends fail, blocking their decisions
	if r.options.Sink != nil {
		err = errors.Join(err, r.options.Sink.Close(ctx))
	}
	return err
}
