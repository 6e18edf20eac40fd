// Package autoreview is layer 6 of the gate (docs/codewhale/pipeline.md §6): the
// `[auto_review]` rules, the classification of a call, the deterministic
// decision with its built-in safety floor, and what that decision does to
// the call's plan in each posture. Everything here is pure; the caller
// supplies the write-target test (gate/writetarget) and runs the guardian.
package autoreview
