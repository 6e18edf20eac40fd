// Package remote carries an agent's call from `codewhale-ls hook` to the
// codewhale-ls server of the same workspace running in an editor, so a
// human there answers where Codewhale would ask.
//
// This file holds only the interface agreed between the hook adapters and
// the socket work of issue 11: until the socket lands, no editor is ever
// found and Ask returns ErrNoEditor.
package remote

import (
	"context"
	"errors"
	"time"

	"github.com/codewhale-ls/codewhale-ls/gate"
)

// ErrNoEditor: no codewhale-ls server for this workspace is listening (or it refused us).
var ErrNoEditor = errors.New("no editor is serving approvals for this workspace")

// Request is one call the agent asks about; Deadline is when the agent stops waiting
// (the editor's prompt must end before it).
type Request struct {
	Agent     string
	Workspace string
	Call      gate.Request
	Deadline  time.Time
}

// Ask sends the call to the editor's server for workspace and returns the final Decision
// (decided by the server with its snapshot, prompting the user where Codewhale would ask).
func Ask(ctx context.Context, req Request) (gate.Decision, error) {
	return gate.Decision{}, ErrNoEditor
}
