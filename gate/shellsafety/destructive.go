package shellsafety

import "strings"

func destroysData(p *parsed, depth int) bool {
	for _, s := range p.stages {
		argv, levels := unwrap(p.words(s))
		if depth+levels > maxNesting {
			return true
		}
		if payload, ok := shellPayload(argv); ok {
			if destroysData(parse(payload), depth+levels+1) {
				return true
			}
			continue
		}
		if destructiveInvocation(argv) {
			return true
		}
	}
	return false
}

func destructiveInvocation(argv []string) bool {
	name := programName(argv)
	switch {
	case name == "mkfs", strings.HasPrefix(name, "mkfs."), name == "wipefs", name == "shred", name == "blkdiscard":
		return true
	case name == "dd":
		for _, a := range argv[1:] {
			if strings.HasPrefix(a, "of=/dev/") {
				return true
			}
		}
	case name == "rm":
		return forceRemovesAbsolute(argv[1:])
	}
	return false
}

// forceRemovesAbsolute: recursive and force flags and a `/…` target.
func forceRemovesAbsolute(args []string) bool {
	recursive, force, absolute := false, false, false
	operands := false
	for _, a := range args {
		switch {
		case operands || a == "" || a[0] != '-':
			absolute = absolute || strings.HasPrefix(a, "/")
		case a == "--":
			operands = true
		default:
			recursive = recursive || hasShort(a, "rR") || hasLong(a, "recursive")
			force = force || hasShort(a, "f") || hasLong(a, "force")
		}
	}
	return recursive && force && absolute
}
