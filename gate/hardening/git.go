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
// GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n variables,
// GIT_CONFIG_PARAMETERS, `git config alias.NAME …` earlier in the line,
// or a config file the line writes and git reads (GIT_CONFIG_GLOBAL,
// include.path, .git/config). An alias naming an alias is followed; one
// starting with ! runs a shell command; one whose value is only known
// when the line runs is unseeable. git's own options before the
// subcommand the engine already reads past (flags with and without
// values), so only an alias makes a finding.
func (in *inspector) gitAlias(c *command) {
	words, known := c.words[1:], c.open-1
	var options []configEntry
	dynamic := ""
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
					// if its key may be one; a file it includes if the
					// line writes it.
					key, val, _ := strings.Cut(inline, "=")
					if file, ok := pwdRelative(val); ok && isInclude(key) {
						options = append(options, configEntry{key, value{text: file, known: true}})
					} else if mayBeAlias(key) || isInclude(key) {
						dynamic = "git reads configuration built when the line runs (" + shorten(inline) + ")"
					}
					continue
				}
			}
			key, val, _ := strings.Cut(inline, "=")
			if a == "-c" {
				options = append(options, configEntry{key, value{text: val, known: true}})
			} else {
				v, set := in.envValue(c, val)
				if !set {
					v = value{} // from the environment the line runs in
				}
				options = append(options, configEntry{key, v})
			}
		case !hasInline && slices.Contains(gitValued, a):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			sub = i
		}
	}
	if sub >= 0 && sub < known && words[sub] == "config" {
		in.gitConfigSet(c, sub)
		return
	}
	// As git reads them: its files, then the environment, then -c.
	entries, fromFiles := in.gitFileConfig(c)
	fromEnv, envDynamic := in.gitEnvConfig(c)
	entries = append(append(entries, fromEnv...), options...)
	dynamic = cmpOr(dynamic, envDynamic, fromFiles)
	entries, included := in.gitIncludes(entries, 0)
	dynamic = cmpOr(dynamic, included)
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

// cmpOr is the first of its arguments that is not "".
func cmpOr(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// isInclude says whether a configuration key includes a file
// (include.path, includeIf.COND.path).
func isInclude(key string) bool {
	key = strings.ToLower(key)
	return key == "include.path" || strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path")
}

// pwdRelative is a path written from the working directory's variable
// ($PWD/c, "${PWD}"/c) as the relative path it names.
func pwdRelative(src string) (string, bool) {
	unq := strings.ReplaceAll(src, `"`, "")
	for _, p := range []string{"${PWD}/", "$PWD/"} {
		if rest, ok := strings.CutPrefix(unq, p); ok && rest != "" && !strings.ContainsAny(rest, "$`'\\") {
			return rest, true
		}
	}
	return "", false
}

// gitDefaultFiles are the config files plain git reads, as a line may
// write them.
var gitDefaultFiles = []string{".git/config", "./.git/config", "~/.gitconfig", "~/.config/git/config"}

// gitFileConfig is the configuration of the files git reads that the
// line sets (git config) or writes (GIT_CONFIG_GLOBAL=FILE, .git/config),
// and why some of it is unknown ("" when none is).
func (in *inspector) gitFileConfig(c *command) ([]configEntry, string) {
	files := append([]string{""}, gitDefaultFiles...)
	for _, env := range []string{"GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CONFIG"} {
		if v, set := in.envValue(c, env); set {
			if !v.known {
				return nil, env + " names a file only known when the line runs"
			}
			files = append(files, v.text)
		}
	}
	var entries []configEntry
	dynamic := ""
	for _, f := range files {
		got, why := in.gitConfigFile(f)
		entries = append(entries, got...)
		dynamic = cmpOr(dynamic, why)
	}
	return entries, dynamic
}

// gitConfigFile is what the line puts in one config file: what git
// config set there, and what the line wrote to it. A file the line does
// not write is judged by its name, as code from a file is.
func (in *inspector) gitConfigFile(name string) ([]configEntry, string) {
	var entries []configEntry
	dynamic := ""
	for _, f := range []string{name, strings.TrimPrefix(name, "./"), "./" + name} {
		if v, ok := in.files[f]; ok && f != "" {
			if !v.known {
				dynamic = "git reads the config file `" + shorten(name) + "`, which the line fills with what a program writes"
			}
			entries = append(entries, parseGitConfig(v.text)...)
			break
		}
	}
	keys := make([]string, 0, len(in.gitConfig[name]))
	for k := range in.gitConfig[name] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		entries = append(entries, configEntry{k, in.gitConfig[name][k]})
	}
	return entries, dynamic
}

// maxIncludes bounds how deeply config files including config files are
// followed.
const maxIncludes = 8

// gitIncludes is entries with each include.path replaced by the
// configuration of the file it names, when the line writes that file.
func (in *inspector) gitIncludes(entries []configEntry, depth int) ([]configEntry, string) {
	var out []configEntry
	dynamic := ""
	for _, e := range entries {
		if !isInclude(e.key) {
			out = append(out, e)
			continue
		}
		if !e.val.known {
			dynamic = "git includes a config file named when the line runs"
			continue
		}
		if depth >= maxIncludes {
			dynamic = "git includes config files deeper than codewhale-ls follows"
			continue
		}
		got, why := in.gitConfigFile(e.val.text)
		got, deeper := in.gitIncludes(got, depth+1)
		out = append(out, got...)
		dynamic = cmpOr(dynamic, why, deeper)
	}
	return out, dynamic
}

// gitConfigReads are git config's options and actions that read or
// remove configuration rather than set it.
var gitConfigReads = strings.Fields("--get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool --unset --unset-all -l --list -e --edit " +
	"--rename-section --remove-section get list unset rename-section remove-section edit")

// gitConfigSet records what `git config [--file F] KEY VALUE` (or `git
// config set KEY VALUE`) sets, for the git commands after it in the
// line: an alias, or a file to include.
func (in *inspector) gitConfigSet(c *command, sub int) {
	words, known := c.words[1:], c.open-1
	file := ""
	var operands []int
	for i := sub + 1; i < len(words); i++ {
		a := words[i]
		switch {
		case i >= known:
			operands = append(operands, i)
		case slices.Contains(gitConfigReads, a) && len(operands) == 0:
			return
		case a == "-f" || a == "--file" || a == "--blob":
			i++
			if i >= known {
				in.unseeable("git config writes a config file named when the line runs")
				return
			}
			file = words[i]
		case strings.HasPrefix(a, "--file="):
			file = strings.TrimPrefix(a, "--file=")
		case a == "--type" || a == "--default" || a == "--comment" || a == "--value":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			operands = append(operands, i)
		}
	}
	if len(operands) > 0 && operands[0] < known && words[operands[0]] == "set" {
		operands = operands[1:]
	}
	if len(operands) < 2 {
		return
	}
	k, v := operands[0], operands[1]
	if k >= known {
		if mayBeAlias(words[k]) {
			in.unseeable("git config sets a key built when the line runs (" + shorten(words[k]) + ")")
		}
		return
	}
	key := strings.ToLower(words[k])
	if _, ok := aliasName(key); !ok && !isInclude(key) {
		return
	}
	val := value{}
	if v < known {
		val = value{text: words[v], known: true}
	}
	if in.gitConfig == nil {
		in.gitConfig = map[string]map[string]value{}
	}
	if in.gitConfig[file] == nil {
		in.gitConfig[file] = map[string]value{}
	}
	in.gitConfig[file][key] = val
}

// parseGitConfig reads a git config file's text: [section] and
// [section "sub"] headers, name = value lines, values with quotes,
// escapes and comments as git reads them.
func parseGitConfig(text string) []configEntry {
	var entries []configEntry
	section := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			name, sub, hasSub := strings.Cut(strings.TrimSpace(line[1:end]), " ")
			section = strings.ToLower(name)
			if hasSub {
				section += "." + strings.Trim(strings.TrimSpace(sub), `"`)
			} else if before, after, ok := strings.Cut(section, "."); ok {
				section = before + "." + after // [section.sub], the old spelling
			}
			line = strings.TrimSpace(line[end+1:])
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok {
			v = "true"
		}
		entries = append(entries, configEntry{section + "." + k, value{text: gitConfigValue(v), known: true}})
	}
	return entries
}

// gitConfigValue is a config value as git reads it: quotes removed,
// \\ \" \n \t \b escapes, a # or ; outside quotes starting a comment,
// blanks outside quotes at its ends dropped.
func gitConfigValue(v string) string {
	var b strings.Builder
	quoted := false
	pending := ""
	for i := 0; i < len(v); i++ {
		ch := v[i]
		switch {
		case ch == '"':
			quoted = !quoted
			b.WriteString(pending)
			pending = ""
		case ch == '\\' && i+1 < len(v):
			i++
			b.WriteString(pending)
			pending = ""
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(v[i])
			}
		case !quoted && (ch == '#' || ch == ';'):
			return strings.TrimSpace(b.String())
		case !quoted && (ch == ' ' || ch == '\t'):
			if b.Len() > 0 {
				pending += string(ch)
			}
		default:
			b.WriteString(pending)
			pending = ""
			b.WriteByte(ch)
		}
	}
	return b.String()
}
