package release

// configChanges are the changes of the configuration loaders (gate/config): new, changed and removed keys.
var configChanges = []Change{}

// Each change is a named variable listed above, for example
//
//	var DenyWildcard = Change{ID: "A.3.4", Since: "0.10.0", Summary: "..."}
//
// and the code that behaves differently asks snapshot.Release.Has(DenyWildcard).
