package release

// lintChanges are the changes of what the lints say (diagnostics): DELTA.md Part C.
var lintChanges = []Change{}

// Each change is a named variable listed above, for example
//
//	var DenyWildcard = Change{ID: "A.3.4", Since: "0.10.0", Summary: "..."}
//
// and the code that behaves differently asks snapshot.Release.Has(DenyWildcard).
