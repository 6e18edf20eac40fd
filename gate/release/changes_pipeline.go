package release

// pipelineChanges are the changes of the layers of the pipeline (gate, gate/hooks, approvals): DELTA.md Part B, Part D.
var pipelineChanges = []Change{}

// Each change is a named variable listed above, for example
//
//	var DenyWildcard = Change{ID: "A.3.4", Since: "0.10.0", Summary: "..."}
//
// and the code that behaves differently asks snapshot.Release.Has(DenyWildcard).
