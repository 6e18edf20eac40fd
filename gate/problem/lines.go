package problem

import (
	"sort"
	"unicode/utf8"
)

// Lines converts byte offsets of one text into line and column positions.
type Lines struct {
	text   []byte
	starts []int // byte offset of the start of each line
}

// NewLines indexes text once; every lookup is then a binary search.
func NewLines(text []byte) *Lines {
	starts := []int{0}
	for i, c := range text {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &Lines{text: text, starts: starts}
}

func (l *Lines) clamp(off int) int {
	if off < 0 {
		return 0
	}
	if off > len(l.text) {
		return len(l.text)
	}
	return off
}

// LineOf returns the 0-based line holding byte offset off.
func (l *Lines) LineOf(off int) int {
	off = l.clamp(off)
	return sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off }) - 1
}

// UTF16 returns the 0-based line and UTF-16 column of byte offset off, as
// LSP positions count by default. An offset inside a multi-byte character
// counts as the start of that character.
func (l *Lines) UTF16(off int) (line, col int) {
	off = l.clamp(off)
	line = l.LineOf(off)
	for i := l.starts[line]; i < off; {
		r, size := utf8.DecodeRune(l.text[i:])
		if i+size > off {
			break
		}
		if r >= 0x10000 && r != utf8.RuneError {
			col += 2
		} else {
			col++
		}
		i += size
	}
	return line, col
}

// Bytes returns the 0-based line and byte column of off (LSP "utf-8").
func (l *Lines) Bytes(off int) (line, col int) {
	off = l.clamp(off)
	line = l.LineOf(off)
	return line, off - l.starts[line]
}

// Offset maps a 0-based line and UTF-16 column back to a byte offset,
// clamping past-the-end positions to the end of the line.
func (l *Lines) Offset(line, col int) int {
	if line < 0 {
		return 0
	}
	if line >= len(l.starts) {
		return len(l.text)
	}
	i := l.starts[line]
	for n := 0; n < col && i < len(l.text) && l.text[i] != '\n'; {
		r, size := utf8.DecodeRune(l.text[i:])
		if r >= 0x10000 && r != utf8.RuneError {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return i
}

// Indent returns the spaces and tabs that start the line holding off, up
// to off: what a line inserted beside it should be indented with.
func (l *Lines) Indent(off int) string {
	off = l.clamp(off)
	start := l.starts[l.LineOf(off)]
	end := start
	for end < off && (l.text[end] == ' ' || l.text[end] == '\t') {
		end++
	}
	return string(l.text[start:end])
}
