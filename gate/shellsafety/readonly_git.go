package shellsafety

import (
	"slices"
	"strings"
)

// gitReadOnly accepts the git subcommands that only inspect the repository.
// No global option is accepted before the subcommand: `-c` can set
// core.pager or core.fsmonitor to an arbitrary program.
func gitReadOnly(args []string) bool {
	if len(args) == 0 {
		return false
	}
	check, ok := gitReadOnlySubcommands[args[0]]
	return ok && check(args[1:])
}

var gitReadOnlySubcommands = map[string]func([]string) bool{
	"status":    anyGitArgs,
	"blame":     anyGitArgs,
	"rev-parse": anyGitArgs,
	"ls-files":  anyGitArgs,
	"describe":  anyGitArgs,
	// --output writes a file; --ext-diff runs the configured diff program.
	"diff":   rejectLong("output", "ext-diff"),
	"log":    rejectLong("output", "ext-diff"),
	"show":   rejectLong("output", "ext-diff"),
	"branch": gitBranchListing,
	"remote": func(a []string) bool {
		return len(a) == 0 || len(a) == 1 && (a[0] == "-v" || a[0] == "--verbose")
	},
	"tag": gitTagListing,
}

func anyGitArgs([]string) bool { return true }

// Long options of `git branch` that only shape a listing; the ones in
// gitBranchValueOptions take the next argument when written without `=`.
var (
	gitBranchListingOptions = []string{
		"all", "remotes", "verbose", "list", "show-current", "color", "no-color",
		"column", "no-column", "sort", "format", "merged", "no-merged", "contains",
		"no-contains", "points-at", "abbrev", "no-abbrev", "ignore-case", "omit-empty",
	}
	gitBranchValueOptions = []string{"sort", "format", "merged", "no-merged", "contains", "no-contains", "points-at"}
)

// gitBranchListing accepts `git branch` only as a listing, via an allow-list
// of options (so abbreviations such as `--del` fall outside it) and with
// positionals only as --list patterns: a bare positional creates a branch.
func gitBranchListing(args []string) bool {
	listing := false
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if !slices.Contains(gitBranchListingOptions, name) {
				return false
			}
			listing = listing || name == "list"
			if !hasValue && slices.Contains(gitBranchValueOptions, name) {
				i++
			}
		case isShortCluster(a):
			if strings.Trim(a[1:], "arvliq") != "" {
				return false
			}
			listing = listing || strings.Contains(a, "l")
		default:
			operands = append(operands, a)
		}
	}
	return listing || len(operands) == 0
}

// gitTagListing accepts `git tag`, and -l/--list with patterns; anything
// else creates, deletes or signs a tag.
func gitTagListing(args []string) bool {
	listing := false
	for _, a := range args {
		switch {
		case a == "-l" || a == "--list":
			listing = true
		case strings.HasPrefix(a, "-"):
			return false
		}
	}
	return listing || len(args) == 0
}
