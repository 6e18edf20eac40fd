package hooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/problem"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/tomldoc"
)

// loader collects what one file's decoding finds. Codewhale deserialises a
// hooks file with serde, so a wrong type, a missing required field or an
// unknown event or condition type fails the whole file: those are causes.
type loader struct {
	source   Source
	release  release.Release
	problems []problem.Problem
	causes   []problem.Problem
}

// wholeFile says what a cause means for this file.
func (l *loader) wholeFile() string {
	if l.source == Project {
		return "Codewhale cannot parse hooks.toml and loads none of the project hooks"
	}
	return "Codewhale cannot parse config.toml and refuses to start"
}

func (l *loader) report(code problem.Code, sev problem.Severity, span problem.Span, msg string) {
	l.problems = append(l.problems, problem.Problem{Code: code, Severity: sev, Span: span, Message: msg})
}

// fail records a cause that rejects the whole file.
func (l *loader) fail(code problem.Code, span problem.Span, msg string) {
	sep := ": "
	if strings.HasSuffix(msg, "?") {
		sep = " "
	}
	p := problem.Problem{Code: code, Severity: problem.Error, Span: span, Message: msg + sep + l.wholeFile()}
	l.problems = append(l.problems, p)
	l.causes = append(l.causes, p)
}

// finish turns the causes, if any, into the file's CW005 and empties cfg.
func (l *loader) finish(cfg Config) (Config, []problem.Problem) {
	if len(l.causes) == 0 {
		return cfg, l.problems
	}
	whole := problem.Problem{Code: problem.FileRejected, Severity: problem.Error, Span: l.causes[0].Span}
	if l.source == Project {
		whole.Message = "Codewhale ignores this hooks.toml as a whole: none of its hooks run (global hooks still do)"
	} else {
		whole.Message = "Codewhale rejects config.toml because its [hooks] table does not parse: Codewhale refuses to start"
	}
	for _, c := range l.causes {
		whole.Related = append(whole.Related, problem.Related{Span: c.Span, Message: c.Message})
	}
	return Config{Rejected: true, Enabled: cfg.Enabled, Release: cfg.Release}, append(l.problems, whole)
}

func (l *loader) wrongType(e *tomldoc.Entry, want string) {
	l.fail(problem.InvalidValue, e.Value.Span, fmt.Sprintf("`%s` must be %s, not %s %s", e.Key, want, article(e.Value.Kind), e.Value.Kind))
}

func article(k tomldoc.Kind) string {
	if k == tomldoc.Integer || k == tomldoc.Array {
		return "an"
	}
	return "a"
}

// unknownKeys reports keys serde skips in a table of the given kind.
func (l *loader) unknownKeys(t *tomldoc.TableValue, known []string, where string) {
	for _, e := range t.Entries {
		if !slices.Contains(known, e.Key) {
			l.report(problem.UnknownKey, problem.Warning, e.KeySpan,
				fmt.Sprintf("Codewhale ignores unknown key `%s` in %s%s", e.Key, where, problem.DidYouMean(e.Key, known)))
		}
	}
}

// The typed getters return the entry only when it holds the right type;
// a wrong type is a cause.

func (l *loader) stringAt(t *tomldoc.TableValue, key string) (string, *tomldoc.Entry) {
	e := t.Get(key)
	if e == nil {
		return "", nil
	}
	if e.Value.Kind != tomldoc.String {
		l.wrongType(e, "a string")
		return "", nil
	}
	return e.Value.Str, e
}

func (l *loader) boolAt(t *tomldoc.TableValue, key string, def bool) (bool, *tomldoc.Entry) {
	e := t.Get(key)
	if e == nil {
		return def, nil
	}
	if e.Value.Kind != tomldoc.Bool {
		l.wrongType(e, "a boolean")
		return def, nil
	}
	return e.Value.Bool, e
}

func (l *loader) intAt(t *tomldoc.TableValue, key string) (int64, *tomldoc.Entry) {
	e := t.Get(key)
	if e == nil {
		return 0, nil
	}
	if e.Value.Kind != tomldoc.Integer {
		l.wrongType(e, "an integer")
		return 0, nil
	}
	return e.Value.Int, e
}

func (l *loader) uintAt(t *tomldoc.TableValue, key string) (uint64, *tomldoc.Entry) {
	n, e := l.intAt(t, key)
	if e != nil && n < 0 {
		l.fail(problem.InvalidValue, e.Value.Span, fmt.Sprintf("`%s` must not be negative", key))
		return 0, nil
	}
	return uint64(n), e
}

// arrayAt returns the items of an array, or nil when absent or mistyped.
func (l *loader) arrayAt(t *tomldoc.TableValue, key string) []*tomldoc.Value {
	e := t.Get(key)
	if e == nil {
		return nil
	}
	if e.Value.Kind != tomldoc.Array {
		l.wrongType(e, "an array of tables")
		return nil
	}
	return e.Value.Items
}

func (l *loader) require(t *tomldoc.TableValue, span problem.Span, key, where string) bool {
	if t.Get(key) != nil {
		return true
	}
	l.fail(problem.MissingKey, span, fmt.Sprintf("%s has no `%s`, which Codewhale requires", where, key))
	return false
}
