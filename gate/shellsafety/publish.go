package shellsafety

import (
	"slices"
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/tool"
)

// PublishLike is pipeline.md §6.3's publish-like test of one segment. Like
// Codewhale it reads whitespace-separated tokens as they are: quotes are
// not removed and no wrapper (sudo, VAR=…) is peeled, so the command must
// start with git, gh, npm or cargo.
func PublishLike(segment string) bool {
	t := strings.Fields(segment)
	if len(t) >= 2 {
		switch t[0] + " " + t[1] {
		case "gh release", "npm publish", "cargo publish":
			return true
		}
	}
	if len(t) == 0 || t[0] != "git" {
		return false
	}
	sub, args := gitSubcommand(t[1:])
	switch sub {
	case "tag":
		return tagPublishes(args)
	case "push":
		return pushPublishes(args)
	}
	return false
}

// gitSubcommand skips the git global options §6.3 lists (and only those)
// and returns the subcommand with its arguments.
func gitSubcommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C", a == "-c", slices.Contains(gitValueGlobals, a):
			i++
		case slices.ContainsFunc(gitValueGlobals, func(g string) bool { return strings.HasPrefix(a, g+"=") }):
			// --git-dir=x and the like are one word.
		default:
			return a, args[i+1:]
		}
	}
	return "", nil
}

var gitValueGlobals = []string{"--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"}

var (
	tagMutatingFlags = []string{"-d", "--delete", "-a", "--annotate", "-s", "--sign", "-f", "--force",
		"-u", "--local-user", "-m", "--message", "-F", "--file"}
	tagInspectingFlags = []string{"-l", "--list", "-v", "--verify"}
)

// tagPublishes: a mutating flag, or a tag name without a list/verify flag.
func tagPublishes(args []string) bool {
	named, inspecting := false, false
	for _, a := range args {
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
func pushPublishes(args []string) bool {
	var positional []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			if !slices.Contains(pushQuietFlags, a) && !isQuietShortPushFlags(a) {
				return true
			}
			continue
		}
		positional = append(positional, a)
	}
	if len(positional) < 2 {
		return true
	}
	for _, r := range positional[1:] {
		if !plainBranchRefspec(r) {
			return true
		}
	}
	return false
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
	d := tool.LowerASCII(strings.TrimPrefix(dst, "refs/heads/"))
	switch {
	case strings.HasPrefix(d, "refs/"), d == "main", d == "master", d == "head", strings.HasPrefix(d, "release"):
		return false
	case len(d) >= 2 && d[0] == 'v' && '0' <= d[1] && d[1] <= '9':
		return false
	}
	return true
}
