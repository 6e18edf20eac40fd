package release

// engineChanges are the changes of the typed-rule engine (gate/execpolicy): DELTA.md Part A, DELTA-0.10.1.md Part A.
var engineChanges = []Change{}

// Each change is a named variable listed above, for example
//
//	var DenyWildcard = Change{ID: "A.3.4", Since: "0.10.0", Summary: "..."}
//
// and the code that behaves differently asks snapshot.Release.Has(DenyWildcard).
