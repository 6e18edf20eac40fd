package hardening

import "strings"

// codeFrom is the code a program reads from a file (a shell's or
// source's script, an interpreter's, awk -f, sed -f, gawk -i and
// @include), by the rule of docs/hardening.md, "Code
// from a file": a file the line itself writes is read as the text it
// writes, standard input, a file descriptor or a process substitution as
// what the line gives them; each is unseeable when the line gives what
// only the running program knows. A file that exists before the line is
// judged by its name, as any script file is: read says nothing is read.
func (in *inspector) codeFrom(c *command, file, runner string) (text string, read bool) {
	switch {
	case strings.Contains(file, hole):
		in.unseeable(runner + " runs code from a file named when the line runs")
	case file == "-" || file == "/dev/stdin" || file == "/proc/self/fd/0" || file == "/dev/fd/0":
		switch {
		case c.stdin.known:
			return c.stdin.text, true
		case c.stdin.from != "":
			in.unseeable(runner + " runs the code " + c.stdin.from + " gives it")
		}
	case strings.HasPrefix(file, "/dev/fd/") || strings.HasPrefix(file, "/proc/self/fd/"):
		fd := file[strings.LastIndexByte(file, '/')+1:]
		if v, ok := in.fds[fd]; ok && v.known {
			return v.text, true
		}
		in.unseeable(runner + " runs the code file descriptor " + fd + " holds")
	case strings.HasPrefix(file, "<("):
		if v := in.procSubsts[file]; v.known {
			return v.text, true
		}
		in.unseeable(runner + " runs the code a process substitution prints")
	default:
		v, ok := in.files[file]
		if !ok {
			v, ok = in.files[strings.TrimPrefix(file, "./")]
		}
		switch {
		case ok && v.known:
			return v.text, true
		case ok:
			in.unseeable(runner + " runs code from the file `" + shorten(file) + "`, which the line fills with what a program writes")
		}
	}
	return "", false
}
