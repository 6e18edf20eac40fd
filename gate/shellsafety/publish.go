package shellsafety

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// PublishLike is docs/codewhale/pipeline.md §6.3's publish-like test of one segment. Like
// Codewhale it reads whitespace-separated tokens as they are: quotes are
// not removed and no wrapper (sudo, VAR=…) is peeled, so the command must
// start with git, gh, npm or cargo.
func PublishLike(segment string) bool {
	f := fields{rest: segment}
	program, _ := f.next()
	switch program {
	case "gh":
		sub, _ := f.next()
		return sub == "release"
	case "npm", "cargo":
		sub, _ := f.next()
		return sub == "publish"
	case "git":
		switch gitSubcommand(&f) {
		case "tag":
			return tagPublishes(f)
		case "push":
			return pushPublishes(f)
		}
	}
	return false
}

// fields walks the words strings.Fields would return, without the slice.
type fields struct{ rest string }

func (f *fields) next() (string, bool) {
	s := f.rest
	start := 0
	for start < len(s) {
		space, width := spaceAt(s, start)
		if !space {
			break
		}
		start += width
	}
	end := start
	for end < len(s) {
		space, width := spaceAt(s, end)
		if space {
			break
		}
		end += width
	}
	f.rest = s[end:]
	return s[start:end], start < end
}

// spaceAt reports whether the rune at s[i] is white space as
// unicode.IsSpace has it, and its width; ASCII needs no decoding.
func spaceAt(s string, i int) (space bool, width int) {
	if c := s[i]; c < utf8.RuneSelf {
		return c == ' ' || '\t' <= c && c <= '\r', 1
	}
	r, width := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r), width
}

// gitSubcommand skips the git global options §6.3 lists (and only those)
// and returns the subcommand, leaving f at its arguments.
func gitSubcommand(f *fields) string {
	for {
		a, ok := f.next()
		if !ok {
			return ""
		}
		name, _, joined := strings.Cut(a, "=")
		switch {
		case a == "-C", a == "-c", slices.Contains(gitValueGlobals, a):
			f.next()
		case joined && slices.Contains(gitValueGlobals, name):
			// --git-dir=x and the like are one word.
		default:
			return a
		}
	}
}

var gitValueGlobals = []string{"--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"}

var (
	tagMutatingFlags = []string{"-d", "--delete", "-a", "--annotate", "-s", "--sign", "-f", "--force",
		"-u", "--local-user", "-m", "--message", "-F", "--file"}
	tagInspectingFlags = []string{"-l", "--list", "-v", "--verify"}
)

// tagPublishes: a mutating flag, or a tag name without a list/verify flag.
func tagPublishes(args fields) bool {
	named, inspecting := false, false
	for a, ok := args.next(); ok; a, ok = args.next() {
		switch {
		case slices.Contains(tagMutatingFlags, a):
			return true
		case slices.Contains(tagInspectingFlags, a):
			inspecting = true
		case !strings.HasPrefix(a, "-"):
			named = true
		}
	}
	return named && !inspecting
}

var pushQuietFlags = []string{"--set-upstream", "--verbose", "--quiet", "--porcelain", "--no-verify", "--dry-run"}

// pushPublishes: every push publishes except an explicit remote with plain
// branch refspecs and only harmless flags.
func pushPublishes(args fields) bool {
	positionals := 0
	for a, ok := args.next(); ok; a, ok = args.next() {
		switch {
		case strings.HasPrefix(a, "-"):
			if !slices.Contains(pushQuietFlags, a) && !isQuietShortPushFlags(a) {
				return true
			}
		case positionals > 0 && !plainBranchRefspec(a): // after the remote
			return true
		default:
			positionals++
		}
	}
	return positionals < 2
}

// isQuietShortPushFlags: a cluster of -u -v -q -n.
func isQuietShortPushFlags(a string) bool {
	return isShortCluster(a) && strings.Trim(a[1:], "uvqn") == ""
}

// plainBranchRefspec: no force (+), no pattern, both sides of `:` present,
// and a destination that is an ordinary branch — not under refs/ (tags,
// notes), not main/master/HEAD, not a release branch, not a version.
// Codewhale states the main/master/head test case-insensitively; the other
// name tests here compare the lower-cased destination as well.
func plainBranchRefspec(r string) bool {
	if strings.HasPrefix(r, "+") || strings.Contains(r, "*") {
		return false
	}
	dst := r
	if src, d, ok := strings.Cut(r, ":"); ok {
		if src == "" || d == "" {
			return false
		}
		dst = d
	}
	d := strings.TrimPrefix(dst, "refs/heads/")
	switch {
	case hasPrefixFold(d, "refs/"), equalFold(d, "main"), equalFold(d, "master"), equalFold(d, "head"), hasPrefixFold(d, "release"):
		return false
	case len(d) >= 2 && ascii.LowerByte(d[0]) == 'v' && '0' <= d[1] && d[1] <= '9':
		return false
	}
	return true
}
