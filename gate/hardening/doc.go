// Package hardening finds the commands a shell line will run that
// Codewhale's engine does not see as written (docs/hardening.md): the
// command words after quoting, ANSI-C escapes, brace expansion and Unicode
// look-alikes; the commands other commands run (xargs, find -exec, git
// aliases, `sh -c`, eval, a shell fed by a pipe, a here-string or a
// process substitution, interpreters' code strings); every command of a
// compound line, however deep or long; and rm's flags in any spelling.
// Where the line runs code that cannot be read (a command word built at
// run time, dynamic code) it says so. It parses with mvdan.cc/sh, as bash
// reads the line, and decides nothing: the gate re-judges each command it
// finds with the user's own rules (gate/layer_hardening.go).
package hardening
