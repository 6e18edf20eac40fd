package gate

import (
	"fmt"

	"github.com/codewhale-ls/codewhale-ls/gate/config"
	"github.com/codewhale-ls/codewhale-ls/gate/release"
	"github.com/codewhale-ls/codewhale-ls/gate/session"
)

// resolvedSession is the authority a call runs under after layer 1.
type resolvedSession struct {
	authority
	shellOn bool
	notes   []string
	// yoloAsPosture: the request said yolo and the release has no Yolo
	// mode, so it became Agent asking for Full Access
	// (docs/codewhale/releases/0.10.0.md B.0).
	yoloAsPosture bool
	// lockRefused: the files' lock refused the request's posture or yolo.
	lockRefused bool
}

// resolveSession applies the request's mode and posture over the posture
// the files resolve (docs/codewhale/pipeline.md §0.2, §1.2, §1.6). A posture the files
// lock can only be replaced by Never, the strictest, and a locked posture
// refuses yolo, as Codewhale refuses --yolo and Shift+Tab. From 0.10.0
// there is no Yolo mode: yolo is Agent with the Full Access posture, so
// the shell follows allow_shell as in Agent mode.
func resolveSession(p config.Policy, r release.Release, req Request) resolvedSession {
	s := resolvedSession{authority: authority{mode: req.Mode, posture: p.Posture}}
	if req.Posture != nil && *req.Posture != p.Posture {
		if !p.Locked || *req.Posture == session.Never {
			s.posture = *req.Posture
			s.notes = append(s.notes, "posture "+s.posture.String()+" from the request")
		} else {
			s.lockRefused = true
			s.notes = append(s.notes, fmt.Sprintf("requested posture %s ignored: permissions are controlled by %s", req.Posture.String(), p.PostureSource))
		}
	}
	yolo := s.mode == session.Yolo
	if yolo && r.Has(release.ThreeModes) {
		s.mode, s.yoloAsPosture = session.Agent, true
		s.notes = append(s.notes, "yolo is Agent mode with the Full Access posture (Codewhale "+release.ThreeModes.Since+" has no Yolo mode)")
	}
	if yolo && p.Locked {
		s.mode, s.lockRefused = session.Agent, true
		s.notes = append(s.notes, "yolo mode refused: permissions are controlled by "+p.PostureSource)
	} else if yolo {
		s.posture = session.FullAccess
	}
	if s.mode == session.Plan {
		s.posture = session.Ask
	}
	s.autoApprove = s.posture == session.FullAccess || s.mode == session.Yolo
	s.shellOn = shellAvailable(p, s, req.Origin)
	return s
}

// sessionChanges records the release changes that made the session, its
// sandbox or the files' refusal to start differ from 0.9.10's.
func (p *plan) sessionChanges() {
	policy := p.snap.Policy
	if len(p.snap.Fatal()) > 0 {
		for _, c := range policy.FatalChanges {
			p.changed(c)
		}
	}
	if p.s.yoloAsPosture {
		p.changed(release.ThreeModes)
	}
	if p.s.lockRefused {
		for _, c := range policy.LockChanges {
			p.changed(c)
		}
	}
	if p.snap.Release.Has(release.SandboxNetworkOff) && networkChanged(p.sandbox) {
		p.changed(release.SandboxNetworkOff)
	}
}

// loosening says why a request's posture or mode would loosen the posture
// the files chose (the session a request that names neither gets), or ""
// when it does not. In Codewhale the human picks the posture and the mode,
// never the model: Yolo always loosens (shell and trust on, Full Access),
// and so does any posture below the chosen one in the loose → strict order,
// also when a mode projects it (Plan runs under Ask, looser than Never).
// A mode other than the session's also changes what every hook sees (a
// `mode` condition, DEEPSEEK_MODE), so that a hook the user wrote to deny
// in Agent mode would not fire: with hooks configured, no other mode is a
// tightening that can be proven, and it is refused too.
func loosening(snap *config.Snapshot, req Request) string {
	p := snap.Policy
	chosen := resolveSession(p, snap.Release, Request{Mode: session.Agent, Origin: req.Origin})
	chosenBy := "the files leave it unset"
	if p.PostureSource != "unset" {
		chosenBy = "set by " + p.PostureSource
	}
	refuse := func(what string) string {
		return fmt.Sprintf("codewhale-ls refuses this call: the request asks for %s, looser than the posture the user chose, %s (%s); only the user can loosen it", what, chosen.posture.String(), chosenBy)
	}
	if req.Mode == session.Yolo {
		if snap.Release.Has(release.ThreeModes) {
			return refuse("mode yolo (Agent with the Full Access posture)")
		}
		return refuse("mode yolo (Full Access with the shell on)")
	}
	if req.Posture != nil && req.Posture.Strictness() < chosen.posture.Strictness() {
		return refuse("posture " + req.Posture.String())
	}
	if got := resolveSession(p, snap.Release, req); got.posture.Strictness() < chosen.posture.Strictness() {
		return refuse("mode " + req.Mode.String() + ", which runs under posture " + got.posture.String())
	}
	if req.Mode != chosen.mode && snap.Hooks.Enabled && len(snap.Hooks.Hooks) > 0 {
		return fmt.Sprintf("codewhale-ls refuses this call: the request asks for mode %s instead of %s, the mode the session runs in, and the configured hooks would see that mode (their `mode` conditions, DEEPSEEK_MODE), so a hook written for %s mode might not fire; only the user can switch modes", req.Mode.String(), chosen.mode.String(), chosen.mode.String())
	}
	return ""
}

func shellAvailable(p config.Policy, s resolvedSession, origin session.Origin) bool {
	switch {
	case s.mode == session.Plan:
		return false
	case s.mode == session.Yolo:
		return true
	case p.Overlay.ShellOff:
		return false
	case p.AllowShell.Set:
		return p.AllowShell.Value
	}
	// Unset: the interactive engine exposes the shell; headless hosts hide it.
	return origin != session.Headless
}

func (s resolvedSession) describe(p config.Policy) string {
	d := p.Describe() + "; posture " + s.posture.Label() + "; mode " + s.mode.String()
	if p.Locked {
		d += "; locked by " + p.PostureSource
	}
	for _, note := range s.notes {
		d += "; " + note
	}
	return d
}
