// Package console is the terminal approval console (codewhale-ls
// approvals) without the terminal: the queue of cards several hooks can
// wait on, what each card shows, and the keys that answer it. The command
// (cmd/codewhale-ls/approvals.go) only reads bytes, draws lines and rings
// bells; every decision about what a key does is made here, with the time
// given, so it is tested without a terminal (docs/architecture.md,
// "How another agent's hook reaches the editor").
//
// A card answers as the Neovim card does (editors/nvim/lua/codewhale/
// prompt.lua): nothing is taken until the card has been on the screen,
// focused and untouched, for Guard; every key re-arms that guard.
// Approving is typing the choice's code, three letters drawn for each
// card; d denies and Esc dismisses (a deny too); any other key drops what
// was typed. So no run of ordinary typing approves, and no key typed
// before the card was read does.
package console

import "time"

// KeyKind is what a key (or a terminal report) is.
type KeyKind int

const (
	// KeyRune is a printable character (Rune).
	KeyRune KeyKind = iota
	// KeyEsc is the Escape key alone.
	KeyEsc
	// KeyInterrupt is Ctrl-C, which stops the console.
	KeyInterrupt
	// KeyRedraw is Ctrl-L.
	KeyRedraw
	// KeyFocusIn and KeyFocusOut are the terminal's focus reports
	// (CSI I and CSI O, asked for with CSI ?1004h).
	KeyFocusIn
	KeyFocusOut
	KeyUp
	KeyDown
	KeyPageUp
	KeyPageDown
	KeyHome
	KeyEnd
	// KeyOther is any other key or sequence (a control key, a function
	// key, Alt with a key): it only re-arms the guard.
	KeyOther
)

// Key is one key typed, or one report of the terminal.
type Key struct {
	Kind KeyKind
	Rune rune
}

// EscWait is how long a lone ESC byte waits for the rest of a sequence
// before it is the Escape key. Over SSH a sequence's bytes can arrive
// apart; a person cannot press another key that fast after Escape.
const EscWait = 60 * time.Millisecond

// Decoder turns the bytes a terminal sends into keys. An escape sequence
// cut between two reads is kept until the rest comes (Feed) or EscWait
// passes (Flush).
type Decoder struct {
	pending []byte
}

// maxSequence bounds a sequence the decoder keeps: past it, the bytes are
// one KeyOther (a sequence no key sends).
const maxSequence = 32

// Feed decodes b after what was pending.
func (d *Decoder) Feed(b []byte) []Key {
	buf := append(d.pending, b...)
	d.pending = nil
	var keys []Key
	for len(buf) > 0 {
		k, n := decodeOne(buf)
		if n == 0 {
			// An incomplete sequence (or a cut UTF-8 character): wait
			// for the rest.
			if len(buf) > maxSequence {
				keys = append(keys, Key{Kind: KeyOther})
				buf = nil
				break
			}
			d.pending = append([]byte(nil), buf...)
			break
		}
		keys = append(keys, k)
		buf = buf[n:]
	}
	return keys
}

// Pending reports whether bytes wait for the rest of a sequence: the
// caller calls Flush if nothing more comes within EscWait.
func (d *Decoder) Pending() bool { return len(d.pending) > 0 }

// Flush ends what is pending: a lone ESC is the Escape key, anything else
// a KeyOther.
func (d *Decoder) Flush() []Key {
	if len(d.pending) == 0 {
		return nil
	}
	lone := len(d.pending) == 1 && d.pending[0] == 0x1b
	d.pending = nil
	if lone {
		return []Key{{Kind: KeyEsc}}
	}
	return []Key{{Kind: KeyOther}}
}

// decodeOne decodes the key at the start of b and its length; 0 when b
// holds only the start of one.
func decodeOne(b []byte) (Key, int) {
	c := b[0]
	switch {
	case c == 0x1b:
		return decodeEscape(b)
	case c == 0x03:
		return Key{Kind: KeyInterrupt}, 1
	case c == 0x0c:
		return Key{Kind: KeyRedraw}, 1
	case c < 0x20 || c == 0x7f:
		return Key{Kind: KeyOther}, 1
	case c < 0x80:
		return Key{Kind: KeyRune, Rune: rune(c)}, 1
	}
	// A UTF-8 character: never a code letter, so only its length
	// matters.
	size := 0
	switch {
	case c >= 0xf0:
		size = 4
	case c >= 0xe0:
		size = 3
	case c >= 0xc0:
		size = 2
	default:
		return Key{Kind: KeyOther}, 1
	}
	if len(b) < size {
		return Key{}, 0
	}
	return Key{Kind: KeyOther}, size
}

// decodeEscape decodes a sequence starting with ESC: CSI (ESC [ params
// final), SS3 (ESC O x), Alt with a key (ESC x), or ESC alone once
// nothing follows (Flush).
func decodeEscape(b []byte) (Key, int) {
	if len(b) < 2 {
		return Key{}, 0
	}
	switch b[1] {
	case '[':
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return csiKey(string(b[2:i]), b[i]), i + 1
			}
			if b[i] < 0x20 || b[i] > 0x3f {
				// Not a CSI parameter: a broken sequence.
				return Key{Kind: KeyOther}, i
			}
		}
		return Key{}, 0
	case 'O':
		if len(b) < 3 {
			return Key{}, 0
		}
		switch b[2] {
		case 'A':
			return Key{Kind: KeyUp}, 3
		case 'B':
			return Key{Kind: KeyDown}, 3
		}
		return Key{Kind: KeyOther}, 3
	case 0x1b:
		// ESC ESC: the first is the Escape key.
		return Key{Kind: KeyEsc}, 1
	}
	return Key{Kind: KeyOther}, 2
}

func csiKey(params string, final byte) Key {
	switch {
	case final == 'I' && params == "":
		return Key{Kind: KeyFocusIn}
	case final == 'O' && params == "":
		return Key{Kind: KeyFocusOut}
	case final == 'A':
		return Key{Kind: KeyUp}
	case final == 'B':
		return Key{Kind: KeyDown}
	case final == '~' && params == "5":
		return Key{Kind: KeyPageUp}
	case final == '~' && params == "6":
		return Key{Kind: KeyPageDown}
	case final == 'H' && params == "", final == '~' && params == "1":
		return Key{Kind: KeyHome}
	case final == 'F' && params == "", final == '~' && params == "4":
		return Key{Kind: KeyEnd}
	}
	return Key{Kind: KeyOther}
}
