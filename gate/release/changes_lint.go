package release

// lintChanges are changes only of what the lints say, not of what
// Codewhale does (docs/codewhale/releases/0.10.0.md Part C): the lints
// mostly ask the behaviour changes of the other files.
var lintChanges = []Change{}
