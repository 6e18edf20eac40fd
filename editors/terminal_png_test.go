package editors_test

import (
	"image"
	"image/color"
	"image/draw"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// renderTerminal draws a terminal screen as `tmux capture-pane -e -p`
// prints it (text with SGR colour sequences) into an image, one 7×13
// cell per character, so the README's pictures come from what the
// editor really showed.
func renderTerminal(ansi string, cols, rows int) *image.RGBA {
	const cw, ch = 7, 13
	img := image.NewRGBA(image.Rect(0, 0, cols*cw, rows*ch))
	draw.Draw(img, img.Bounds(), &image.Uniform{defaultBG}, image.Point{}, draw.Src)
	face := basicfont.Face7x13
	st := defaultStyle()
	row, col := 0, 0
	runes := []rune(ansi)
	for i := 0; i < len(runes) && row < rows; i++ {
		r := runes[i]
		switch {
		case r == '\x1b' && i+1 < len(runes) && runes[i+1] == '[':
			j := i + 2
			for j < len(runes) && (runes[j] < 0x40 || runes[j] > 0x7e) {
				j++
			}
			if j < len(runes) && runes[j] == 'm' {
				st.apply(string(runes[i+2 : j]))
			}
			i = j
		case r == '\n':
			row, col = row+1, 0
		case r == '\r' || r < 0x20:
		default:
			if col >= cols {
				continue
			}
			fg, bg := st.fg, st.bg
			if st.reverse {
				fg, bg = bg, fg
			}
			cell := image.Rect(col*cw, row*ch, (col+1)*cw, (row+1)*ch)
			draw.Draw(img, cell, &image.Uniform{bg}, image.Point{}, draw.Src)
			if !drawBox(img, cell, r, fg) {
				d := font.Drawer{Dst: img, Src: &image.Uniform{fg}, Face: face,
					Dot: fixed.P(col*cw, row*ch+face.Ascent)}
				d.DrawString(string(r))
				if st.bold {
					d.Dot = fixed.P(col*cw+1, row*ch+face.Ascent)
					d.DrawString(string(r))
				}
			}
			if st.underline {
				draw.Draw(img, image.Rect(cell.Min.X, cell.Max.Y-1, cell.Max.X, cell.Max.Y), &image.Uniform{fg}, image.Point{}, draw.Src)
			}
			col++
		}
	}
	return img
}

// drawBox draws the box-drawing characters of a float's border, which
// the bitmap font lacks, as lines through the cell's centre.
func drawBox(img *image.RGBA, c image.Rectangle, r rune, fg color.Color) bool {
	mx, my := (c.Min.X+c.Max.X)/2, (c.Min.Y+c.Max.Y)/2
	left := image.Rect(c.Min.X, my, mx+1, my+1)
	right := image.Rect(mx, my, c.Max.X, my+1)
	up := image.Rect(mx, c.Min.Y, mx+1, my+1)
	down := image.Rect(mx, my, mx+1, c.Max.Y)
	var parts []image.Rectangle
	switch r {
	case '─':
		parts = []image.Rectangle{left, right}
	case '│':
		parts = []image.Rectangle{up, down}
	case '╭', '┌':
		parts = []image.Rectangle{right, down}
	case '╮', '┐':
		parts = []image.Rectangle{left, down}
	case '╰', '└':
		parts = []image.Rectangle{right, up}
	case '╯', '┘':
		parts = []image.Rectangle{left, up}
	case '■': // virtual text's prefix
		parts = []image.Rectangle{image.Rect(mx-2, my-2, mx+3, my+3)}
	// The marks of the approval card's escapes (⟪RLO U+202E⟫, a line's
	// ⏎, "…"), drawn pixel by pixel: the picture must show them where
	// the terminal does.
	case '⟪', '⟫':
		for k := 0; k < 2; k++ {
			for dy := -3; dy <= 3; dy++ {
				dx := (abs(dy)*2 + 1) / 3
				x := c.Min.X + 1 + 3*k + dx
				if r == '⟫' {
					x = c.Max.X - 2 - 3*k - dx
				}
				parts = append(parts, image.Rect(x, my+dy, x+1, my+dy+1))
			}
		}
	case '…':
		for x := c.Min.X + 1; x < c.Max.X; x += 2 {
			parts = append(parts, image.Rect(x, c.Min.Y+10, x+1, c.Min.Y+11))
		}
	case '⏎':
		parts = []image.Rectangle{image.Rect(c.Max.X-2, c.Min.Y+3, c.Max.X-1, my+1), image.Rect(c.Min.X+1, my, c.Max.X-1, my+1),
			image.Rect(c.Min.X+2, my-1, c.Min.X+3, my+2), image.Rect(c.Min.X+3, my-2, c.Min.X+4, my+3)}
	default:
		return false
	}
	for _, p := range parts {
		draw.Draw(img, p, &image.Uniform{fg}, image.Point{}, draw.Src)
	}
	return true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

var (
	defaultFG = color.RGBA{0xe0, 0xe2, 0xea, 0xff}
	defaultBG = color.RGBA{0x14, 0x16, 0x1b, 0xff}
)

type termStyle struct {
	fg, bg                   color.RGBA
	bold, underline, reverse bool
}

func defaultStyle() termStyle { return termStyle{fg: defaultFG, bg: defaultBG} }

// apply applies one SGR sequence's parameters.
func (s *termStyle) apply(params string) {
	if params == "" {
		*s = defaultStyle()
		return
	}
	p := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	n := make([]int, len(p))
	for i, v := range p {
		n[i], _ = strconv.Atoi(v)
	}
	for i := 0; i < len(n); i++ {
		switch v := n[i]; {
		case v == 0:
			*s = defaultStyle()
		case v == 1:
			s.bold = true
		case v == 4:
			s.underline = true
		case v == 7:
			s.reverse = true
		case v == 22:
			s.bold = false
		case v == 24:
			s.underline = false
		case v == 27:
			s.reverse = false
		case v >= 30 && v <= 37:
			s.fg = xterm(v - 30)
		case v >= 90 && v <= 97:
			s.fg = xterm(v - 90 + 8)
		case v >= 40 && v <= 47:
			s.bg = xterm(v - 40)
		case v >= 100 && v <= 107:
			s.bg = xterm(v - 100 + 8)
		case v == 39:
			s.fg = defaultFG
		case v == 49:
			s.bg = defaultBG
		case (v == 38 || v == 48) && i+1 < len(n):
			var c color.RGBA
			switch {
			case n[i+1] == 5 && i+2 < len(n):
				c = xterm(n[i+2])
				i += 2
			case n[i+1] == 2 && i+4 < len(n):
				c = color.RGBA{uint8(n[i+2]), uint8(n[i+3]), uint8(n[i+4]), 0xff}
				i += 4
			default:
				continue
			}
			if v == 38 {
				s.fg = c
			} else {
				s.bg = c
			}
		}
	}
}

// xterm is the xterm 256-colour palette.
func xterm(n int) color.RGBA {
	base := []color.RGBA{
		{0, 0, 0, 255}, {205, 49, 49, 255}, {13, 188, 121, 255}, {229, 229, 16, 255},
		{36, 114, 200, 255}, {188, 63, 188, 255}, {17, 168, 205, 255}, {229, 229, 229, 255},
		{102, 102, 102, 255}, {241, 76, 76, 255}, {35, 209, 139, 255}, {245, 245, 67, 255},
		{59, 142, 234, 255}, {214, 112, 214, 255}, {41, 184, 219, 255}, {255, 255, 255, 255},
	}
	switch {
	case n < 0 || n > 255:
		return defaultFG
	case n < 16:
		return base[n]
	case n < 232:
		n -= 16
		level := func(x int) uint8 {
			if x == 0 {
				return 0
			}
			return uint8(55 + x*40)
		}
		return color.RGBA{level(n / 36), level(n / 6 % 6), level(n % 6), 255}
	default:
		g := uint8(8 + (n-232)*10)
		return color.RGBA{g, g, g, 255}
	}
}
