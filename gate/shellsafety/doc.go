// Package shellsafety holds the shell-command classifiers several layers of
// the gate share (pipeline.md §4.2, §6.2, §6.3; execpolicy.md §1.3): the
// strict read-only classifier, the general command analyzer and its levels,
// the publish-like and destructive-like segment tests, and Auto-Review's
// "routine shell" test.
//
// None of them runs a shell. They read the command text the way a POSIX
// shell would tokenise it, closely enough to be conservative: anything they
// cannot read with confidence is never rated Safe or WorkspaceSafe.
package shellsafety
