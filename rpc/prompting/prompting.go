// Package prompting decides whether, and how, an editor is given approval
// prompts. A prompt sent to a client that cannot show it fails, and the
// call it asked about becomes an instant deny where the agent would
// otherwise have asked the person itself (issue 25); so a client is given
// prompts, and its workspaces' approval sockets are served, only when it
// declared it can show them (docs/editors.md).
package prompting

// Kind is how prompts reach the editor: the method that carries them.
type Kind string

const (
	// Request is codewhale/approve, a request the client answers
	// (initializationOptions.approvals = "codewhale").
	Request Kind = "codewhale/approve"
	// Notification is codewhale/approvalRequested, answered by the
	// client's codewhale/answerApproval (with approvalsAsync: Neovim).
	Notification Kind = "codewhale/approvalRequested"
	// MessageRequest is window/showMessageRequest whose actions are the
	// card's choices (LSP 3.16's capability
	// window.showMessage.messageActionItem).
	MessageRequest Kind = "window/showMessageRequest"
	// None: the client declared no way to show a prompt.
	None Kind = "none"
)

// Client is what the client declared at initialize.
type Client struct {
	// Approvals is initializationOptions.approvals ("codewhale", or
	// absent).
	Approvals string
	// Async is initializationOptions.approvalsAsync.
	Async bool
	// MessageActions: capabilities.window.showMessage.messageActionItem
	// was sent.
	MessageActions bool
}

// Choice is how a client is prompted, and, for None, why not.
type Choice struct {
	Kind Kind
	// Why not, for None: what the client would have had to declare.
	Why string
}

// Served reports whether the client is given prompts at all: only then
// does it serve its workspaces' approval sockets.
func (c Choice) Served() bool { return c.Kind != None }

// notDeclared is why a client that declared neither way is not prompted.
const notDeclared = `the editor declared neither initializationOptions.approvals = "codewhale" nor the capability window.showMessage.messageActionItem (window/showMessageRequest with actions, LSP 3.16)`

// Choose decides how c is prompted: codewhale's own methods when it
// declared them, else window/showMessageRequest when it declared action
// items, else not at all.
func Choose(c Client) Choice {
	switch {
	case c.Approvals == "codewhale" && c.Async:
		return Choice{Kind: Notification}
	case c.Approvals == "codewhale":
		return Choice{Kind: Request}
	case c.MessageActions:
		return Choice{Kind: MessageRequest}
	}
	return Choice{Kind: None, Why: notDeclared}
}
