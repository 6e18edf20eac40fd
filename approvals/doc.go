// Package approvals is where a human's word enters a decision: the broker
// that puts Codewhale's approval card in front of the editor's user and
// turns every way a prompt can end into an answer, the session grants that
// answer keeps, the "always" rules it writes to permissions.toml, and the
// log of every final decision. It knows nothing of LSP: the prompt goes out
// through an Asker the language server provides.
package approvals
