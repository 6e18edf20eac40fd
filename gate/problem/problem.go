// Package problem is the shape in which every loader reports what it found
// wrong with a Codewhale file: a stable code, a severity, the byte span of the
// offending text and a message saying what Codewhale will do with it.
package problem

// Severity orders findings; Error sorts first.
type Severity int

const (
	Error Severity = iota + 1
	Warning
	Info
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	default:
		return "info"
	}
}

// Span is a half-open byte range [Start, End) of a file's contents.
type Span struct{ Start, End int }

// Problem is one finding in one file.
type Problem struct {
	File     string
	Code     Code
	Severity Severity
	Span     Span
	Message  string
	Related  []Related
	Fixes    []Fix
}

// Related points at another place that explains a problem (the winner of a
// shadowed rule, a cause of a rejected file).
type Related struct {
	File    string
	Span    Span
	Message string
}

// Fix is a quick fix for a problem: edits to the same file.
type Fix struct {
	Title string
	Edits []Edit
	// Safe fixes change nothing but the mistake and may be applied in bulk
	// (source.fixAll).
	Safe bool
	// WhyNotSafe says, for a fix that is not Safe, what it may change
	// beyond the mistake, so `check --fix` can say why it left it
	// (diagnostics.PlanFixes); "" for a safe fix.
	WhyNotSafe string
}

// Edit replaces the bytes of Span with NewText.
type Edit struct {
	Span    Span
	NewText string
}
