package shellsafety

import (
	"slices"
	"strings"
)

// Level is the command analyzer's rating of a shell command.
type Level int

const (
	// Safe: passes ReadOnly.
	Safe Level = iota + 1
	// WorkspaceSafe: an ordinary build, test, lint or format command that
	// acts inside the workspace.
	WorkspaceSafe
	// NeedsReview: anything not recognised either way.
	NeedsReview
	// Dangerous: a pattern docs/codewhale/pipeline.md §6.3 "Analyzer Dangerous" names.
	Dangerous
)

func (l Level) String() string {
	switch l {
	case Safe:
		return "safe"
	case WorkspaceSafe:
		return "workspace-safe"
	case Dangerous:
		return "dangerous"
	default:
		return "needs-review"
	}
}

// rate applies the analyzer's order to p, whose dangerous and read-only
// tests the caller supplies so a Command can answer them from memory.
func rate(p *parsed, dangerous, readOnly func() bool) Level {
	switch {
	case dangerous():
		return Dangerous
	case readOnly():
		return Safe
	case workspaceSafe(p):
		return WorkspaceSafe
	}
	return NeedsReview
}

// catastrophicText is matched case-insensitively anywhere in the command,
// quoted or not.
var catastrophicText = []string{"rm -rf /", "rm -rf /*", "rm -rf ~", "rm -rf $home", ":(){ :|:& };:"}

// catastrophic reports a catastrophicText string in s. Commands seldom
// hold a capital letter; without one the plain search, much faster than
// the folding one, gives the same answer.
func catastrophic(s string) bool {
	fold := hasUpperASCII(s)
	for _, t := range catastrophicText {
		if fold && containsFold(s, t) || !fold && strings.Contains(s, t) {
			return true
		}
	}
	return false
}

func dangerous(p *parsed, depth int) bool {
	if depth > maxNesting || p.controlBytes {
		return true
	}
	if catastrophic(p.text) {
		return true
	}
	fetched := false // a stage of this pipeline ran curl or wget
	for _, s := range p.stages {
		fetched = fetched && !s.first
		argv, levels := unwrap(p.words(s))
		if depth+levels > maxNesting {
			return true
		}
		if payload, ok := shellPayload(argv); ok && dangerous(parse(payload), depth+levels+1) {
			return true
		}
		name := programName(argv)
		if fetched && (name == "sh" || name == "bash" || name == "zsh") {
			return true
		}
		fetched = fetched || name == "curl" || name == "wget"
		if dangerousInvocation(name, argv) {
			return true
		}
	}
	return false
}

func dangerousInvocation(name string, argv []string) bool {
	switch name {
	case "eval":
		return true
	case "rm":
		return dangerousRm(argv[1:])
	case "find":
		return dangerousFind(argv[1:])
	}
	return false
}

// dangerousRm: any of -r/-f/-d (or their long names) and a target the
// analyzer cannot bound.
func dangerousRm(args []string) bool {
	// Two passes over args rather than a list of targets: a megabyte of
	// arguments was copied for each command the line was judged as.
	flagged := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if hasShort(a, "rRfd") || hasLong(a, "recursive", "force", "dir") {
			flagged = true
			break
		}
	}
	if !flagged {
		return false
	}
	for i, a := range args {
		if a == "--" {
			return slices.ContainsFunc(args[i+1:], unboundedTarget)
		}
		if (a == "-" || a == "" || a[0] != '-') && unboundedTarget(a) {
			return true
		}
	}
	return false
}

// dangerousFind: -delete or -exec rm under a root the analyzer cannot bound.
func dangerousFind(args []string) bool {
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P" || strings.HasPrefix(args[i], "-O")) {
		i++
	}
	if i < len(args) && args[i] == "-D" {
		i += 2
	}
	var roots []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "" || strings.ContainsRune("-(!),", rune(a[0])) {
			break
		}
		roots = append(roots, a)
	}
	deletes := false
	for j := i; j < len(args); j++ {
		switch args[j] {
		case "-delete":
			deletes = true
		case "-exec", "-execdir", "-ok", "-okdir":
			deletes = deletes || j+1 < len(args) && programName(args[j+1:]) == "rm"
		}
	}
	return deletes && slices.ContainsFunc(roots, unboundedTarget)
}

// unboundedTarget: a path whose removal may reach the root, the home
// directory or outside the working directory.
func unboundedTarget(t string) bool {
	switch {
	case strings.Contains(t, "$"), strings.HasPrefix(t, "~"):
		return true
	case t != "" && strings.Trim(t, "/") == "": // /, //, ///
		return true
	case strings.HasPrefix(t, "/*"), strings.HasPrefix(t, "/."):
		return true
	}
	return hasDotDot(t)
}
