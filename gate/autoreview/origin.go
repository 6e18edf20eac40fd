package autoreview

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/session"
	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// RunOrigin is where a call will run (docs/codewhale/pipeline.md §6.2): the requested
// origin when the caller says headless or background, else background when
// the call itself starts detached, else interactive.
//
// "Bash/task_shell with background:true or tty:true and not interactive" is
// read as background, or tty without interactive: the reading that calls
// more runs background, whose destructive calls the floor holds.
func RunOrigin(c Call, requested session.Origin) session.Origin {
	if requested != session.Interactive || detached(c) {
		if requested == session.Headless {
			return session.Headless
		}
		return session.Background
	}
	return session.Interactive
}

func detached(c Call) bool {
	switch {
	case tool.IsShell(c.Tool) || strings.HasPrefix(c.Semantic, "task_shell"):
		if c.Semantic == "task_shell_start" && strings.TrimSpace(c.str("command")) != "" {
			return true
		}
		return c.flag("background") || c.flag("tty") && !c.flag("interactive")
	case c.Semantic == "agent":
		return c.action() == "start" && c.flag("detached")
	case c.Semantic == "workflow":
		wait, isBool := c.Input["wait"].(bool)
		return c.action() == "start" && isBool && !wait
	case c.Semantic == "run_verifiers":
		return c.flag("background")
	}
	return false
}
