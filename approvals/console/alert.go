package console

import "fmt"

// AlertMode is how the console tells a person that a card arrived while
// its terminal was not focused (--alert), as the Neovim plugin's `alert`
// option (editors/nvim/lua/codewhale/config.lua), with desktop added.
type AlertMode string

const (
	// AlertDesktop: a desktop notification (notify-send) where one can
	// be shown, else the terminal's notification escape and the bell.
	AlertDesktop AlertMode = "desktop"
	// AlertNotify: the terminal's notification escape (OSC 777 and OSC 9,
	// which many terminals and tmux pass on) and the bell.
	AlertNotify AlertMode = "notify"
	// AlertBell: the terminal's bell.
	AlertBell AlertMode = "bell"
	// AlertNone: nothing but the card itself.
	AlertNone AlertMode = "none"
)

// ParseAlert reads --alert.
func ParseAlert(s string) (AlertMode, error) {
	switch m := AlertMode(s); m {
	case AlertDesktop, AlertNotify, AlertBell, AlertNone:
		return m, nil
	}
	return "", fmt.Errorf("--alert must be desktop, notify, bell or none; got %q", s)
}

// AlertPlan is what to do for one card that arrived unfocused, tried in
// this order: notify-send, then (if it is not run or fails) the
// terminal's escape, then the bell.
type AlertPlan struct {
	NotifySend, Escape, Bell bool
}

// PlanAlert is the alert for a card that arrived with the terminal's
// focus as it is. A terminal known to be unfocused gets the whole of
// mode; one that never reported its focus (the person may be reading it)
// only the bell, which interrupts nobody; a focused one nothing.
// desktop says whether a desktop notification can be shown at all
// (notify-send on PATH, a display to show it on).
func PlanAlert(mode AlertMode, focus Focus, desktop bool) AlertPlan {
	if mode == AlertNone || focus == FocusIn {
		return AlertPlan{}
	}
	if focus == FocusUnknown {
		return AlertPlan{Bell: true}
	}
	switch mode {
	case AlertDesktop:
		return AlertPlan{NotifySend: desktop, Escape: true, Bell: true}
	case AlertNotify:
		return AlertPlan{Escape: true, Bell: true}
	}
	return AlertPlan{Bell: true}
}
