// Package shellsafety holds the shell-command classifiers several layers of
// the gate share (docs/codewhale/pipeline.md §4.2, §6.2, §6.3; docs/codewhale/execpolicy.md §1.3): the
// strict read-only classifier, the general command analyzer and its levels,
// the publish-like and destructive-like segment tests, and Auto-Review's
// "routine shell" test.
//
// None of them runs a shell. They read the command text the way a POSIX
// shell would tokenise it, closely enough to be conservative: anything they
// cannot read with confidence is never rated Safe or WorkspaceSafe.
//
// Each question is a function of the command text. A caller that asks
// several of one command (the gate asks all of them per decision) reads it
// once with Parse and asks the Command instead: same answers, one lexing.
package shellsafety
