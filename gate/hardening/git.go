package hardening

import (
	"slices"
	"strconv"
	"strings"
)

// maxAliasChain bounds how many aliases to aliases are followed (git and
// cargo stop a loop themselves; this stops a long chain).
const maxAliasChain = 16

// gitValued are git's own options before the subcommand that take the
// next word as value (or =value).
var gitValued = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--attr-source", "--list-cmds"}

// configEntry is one configuration variable a line gives git.
type configEntry struct {
	key string
	val value
}

// gitAlias inspects a git command whose subcommand is an alias the line
// itself defines: with -c alias.NAME=…, --config-env=alias.NAME=VAR, the
// GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n variables or
// GIT_CONFIG_PARAMETERS. An alias naming an alias is followed; one
// starting with ! runs a shell command; one whose value is only known
// when the line runs is unseeable. git's own options before the
// subcommand the engine already reads past (flags with and without
// values), so only an alias makes a finding.
func (in *inspector) gitAlias(c *command) {
	words, known := c.words[1:], c.open-1
	entries, dynamic := in.gitEnvConfig(c)
	sub := -1
	for i := 0; i < len(words) && sub < 0; i++ {
		a := words[i]
		opt, inline, hasInline := strings.Cut(a, "=")
		switch {
		case i >= known:
			sub = i
		case a == "-c" || a == "--config-env" || hasInline && opt == "--config-env":
			if !hasInline {
				i++
				if i >= len(words) {
					break
				}
				inline = words[i]
				if i >= known {
					// Configuration built when the line runs: an alias
					// if its key may be one.
					key, _, _ := strings.Cut(inline, "=")
					if mayBeAlias(key) {
						dynamic = "git reads configuration built when the line runs (" + shorten(inline) + ")"
					}
					continue
				}
			}
			key, val, _ := strings.Cut(inline, "=")
			if a == "-c" {
				entries = append(entries, configEntry{key, value{text: val, known: true}})
			} else {
				v, set := in.envValue(c, val)
				if !set {
					v = value{} // from the environment the line runs in
				}
				entries = append(entries, configEntry{key, v})
			}
		case !hasInline && slices.Contains(gitValued, a):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			sub = i
		}
	}
	aliases := map[string]value{}
	for _, e := range entries {
		if name, ok := aliasName(e.key); ok {
			aliases[name] = e.val
		}
	}
	if sub < 0 || len(aliases) == 0 && dynamic == "" {
		return
	}
	if sub >= known {
		// The subcommand is built when the line runs: it may be any alias.
		for name := range aliases {
			in.gitRunAlias(c, aliases, name, sub)
		}
		if dynamic != "" {
			in.unseeable(dynamic)
		}
		return
	}
	name := strings.ToLower(words[sub])
	if _, ok := aliases[name]; !ok {
		if dynamic != "" {
			in.unseeable(dynamic + ", so `" + words[sub] + "` may be an alias")
		}
		return
	}
	in.gitRunAlias(c, aliases, name, sub)
}

// gitRunAlias inspects what the git alias name runs, given as the word
// at words[sub] (c.words[sub+1]).
func (in *inspector) gitRunAlias(c *command, aliases map[string]value, name string, sub int) {
	rest := tail(c, sub+2, false)
	via := "the git alias `" + name + "`"
	expanded := []string{name}
	seen := map[string]bool{}
	for step := 0; ; step++ {
		v, ok := aliases[strings.ToLower(expanded[0])]
		if !ok || seen[strings.ToLower(expanded[0])] {
			break
		}
		seen[strings.ToLower(expanded[0])] = true
		if step >= maxAliasChain {
			in.unseeable(via + " names aliases deeper than codewhale-ls follows")
			return
		}
		if !v.known {
			in.unseeable(via + " is set to a value only known when the line runs")
			return
		}
		if shell, ok := strings.CutPrefix(v.text, "!"); ok {
			// git runs it with sh, the alias's arguments after it.
			in.line(strings.TrimSpace(shell+" "+join(expanded[1:])+" "+rest), c.depth+1, via)
			return
		}
		words, ok := splitString(v.text)
		if !ok || len(words) == 0 {
			in.unseeable(via + " is set to a value codewhale-ls cannot split")
			return
		}
		expanded = append(words, expanded[1:]...)
	}
	in.line(strings.TrimSpace("git "+join(expanded)+" "+rest), c.depth+1, via)
}

// gitEnvConfig is the configuration the environment variables the line
// gives git hold, and why some is unknown ("" when none is).
func (in *inspector) gitEnvConfig(c *command) (entries []configEntry, dynamic string) {
	if count, set := in.envValue(c, "GIT_CONFIG_COUNT"); set {
		n, err := strconv.Atoi(strings.TrimSpace(count.text))
		switch {
		case !count.known || err != nil && count.text != "":
			dynamic = "GIT_CONFIG_COUNT is only known when the line runs"
		default:
			for i := 0; i < min(n, 1024); i++ {
				key, kset := in.envValue(c, "GIT_CONFIG_KEY_"+strconv.Itoa(i))
				val, vset := in.envValue(c, "GIT_CONFIG_VALUE_"+strconv.Itoa(i))
				switch {
				case !kset || !key.known:
					dynamic = "GIT_CONFIG_KEY_" + strconv.Itoa(i) + " is only known when the line runs"
				case !vset:
					entries = append(entries, configEntry{key.text, value{}})
				default:
					entries = append(entries, configEntry{key.text, val})
				}
			}
		}
	}
	if params, set := in.envValue(c, "GIT_CONFIG_PARAMETERS"); set {
		if !params.known {
			dynamic = "GIT_CONFIG_PARAMETERS is only known when the line runs"
		}
		// 'key'='value' 'key2'='value2', or the older 'key=value'.
		for _, w := range wordsOf(params.text) {
			key, val, _ := strings.Cut(w, "=")
			entries = append(entries, configEntry{key, value{text: val, known: params.known}})
		}
	}
	return entries, dynamic
}

// envValue is a variable the command sees that the line gives it: an
// assignment before its name, or one made earlier in the line; set says
// whether the line gives one.
func (in *inspector) envValue(c *command, name string) (value, bool) {
	if v, ok := c.env[name]; ok {
		return v, true
	}
	v, ok := in.vars[name]
	return v, ok
}

// aliasName is the alias a git configuration key defines (alias.NAME,
// case-insensitive), and whether it is one.
func aliasName(key string) (string, bool) {
	section, name, ok := strings.Cut(key, ".")
	if !ok || !strings.EqualFold(section, "alias") || name == "" {
		return "", false
	}
	return strings.ToLower(name), true
}

// mayBeAlias says whether a configuration key written in the line,
// possibly with expansions, may define an alias.
func mayBeAlias(key string) bool {
	return strings.ContainsAny(key, "$`") || strings.HasPrefix(strings.ToLower(strings.Trim(key, `"'`)), "alias")
}
