package hardening

import (
	"slices"
	"strings"
)

// The program under another name (docs/hardening.md, "Other names"):
// git's dashed commands (`git-push`, /usr/lib/git-core/git-push) are git
// with that subcommand; `cargo +TOOLCHAIN sub` is `cargo sub`; cargo
// aliases the line defines (CARGO_ALIAS_NAME, --config alias.NAME=…)
// run what they name; a program copied or linked in the line runs as
// itself (inspect.go's copies). The dynamic loader (ld.so) and `rustup
// run` are wrappers (wrappers.go).

// otherName inspects a command that runs a program under another name.
func (in *inspector) otherName(c *command) {
	name := c.name()
	switch {
	case strings.HasPrefix(name, "git-") && len(name) > len("git-"):
		sub := strings.TrimPrefix(name, "git-")
		text := "git " + Quote(sub)
		if len(c.words) > 1 {
			text += " " + tail(c, 1, false)
		}
		in.line(text, c.depth+1, "`"+c.words[0]+"`")
	case name == "cargo":
		in.cargo(c)
	}
}

// cargoValued are cargo's own options before the subcommand that take
// the next word as value.
var cargoValued = []string{"--color", "-Z", "-C", "--config", "--explain"}

// cargoBuiltins are cargo's own commands, which an alias cannot shadow.
var cargoBuiltins = strings.Fields("add bench build check clean config doc fetch fix generate-lockfile git-checkout help info init install " +
	"locate-project login logout metadata new owner package pkgid publish read-manifest remove report run rustc rustdoc search test " +
	"tree uninstall update vendor verify-project version yank")

// cargo inspects a cargo command whose subcommand a toolchain selector
// (+nightly) or an alias the line defines hides.
func (in *inspector) cargo(c *command) {
	words, known := c.words[1:], c.open-1
	hidden := ""
	aliases := map[string]value{}
	sub := -1
	for i := 0; i < len(words) && sub < 0; i++ {
		a := words[i]
		switch {
		case i >= known:
			sub = i
		case i == 0 && strings.HasPrefix(a, "+"):
			hidden = "`" + a + "` selects a toolchain"
		case a == "--config" || strings.HasPrefix(a, "--config="):
			v, ok := strings.CutPrefix(a, "--config=")
			if !ok {
				i++
				if i >= known {
					continue
				}
				v = words[i]
			}
			if name, val, ok := cargoConfigAlias(v); ok {
				aliases[name] = val
			}
		case slices.Contains(cargoValued, a):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			sub = i
		}
	}
	if sub < 0 {
		return
	}
	if sub >= known {
		if hidden != "" {
			in.line("cargo "+tail(c, sub+1, false), c.depth+1, "`cargo` ("+hidden+")")
		}
		return
	}
	files := in.cargoConfigFiles()
	expanded := []string{words[sub]}
	via := "`cargo` (" + hidden + ")"
	for step := 0; step < maxAliasChain; step++ {
		name := expanded[0]
		if slices.Contains(cargoBuiltins, name) {
			break
		}
		// --config, then the environment, then config files.
		v, ok := aliases[name]
		if !ok {
			v, ok = in.envValue(c, "CARGO_ALIAS_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_")))
		}
		if !ok {
			v, ok = files[name]
		}
		if _, any := files["\x00"]; !ok && any {
			v, ok = value{}, true // a config file of unknown text
		}
		if !ok {
			break
		}
		via = "the cargo alias `" + name + "`"
		if !v.known {
			in.unseeable(via + " is set to a value only known when the line runs")
			return
		}
		words := strings.Fields(v.text)
		if len(words) == 0 {
			break
		}
		expanded = append(words, expanded[1:]...)
		if step == maxAliasChain-1 {
			in.unseeable(via + " names aliases deeper than codewhale-ls follows")
			return
		}
	}
	if len(expanded) == 1 && expanded[0] == words[sub] && hidden == "" {
		return
	}
	in.line(strings.TrimSpace("cargo "+join(expanded)+" "+tail(c, sub+2, false)), c.depth+1, via)
}

// cargoConfigAlias reads `--config alias.NAME=VALUE`: VALUE a TOML
// string or array of strings (or, leniently, bare words).
func cargoConfigAlias(kv string) (string, value, bool) {
	key, val, ok := strings.Cut(kv, "=")
	if !ok {
		return "", value{}, false
	}
	key = strings.TrimSpace(key)
	section, name, ok := strings.Cut(key, ".")
	if !ok || strings.TrimSpace(section) != "alias" {
		return "", value{}, false
	}
	name = strings.Trim(strings.TrimSpace(name), `"'`)
	val = strings.TrimSpace(val)
	if strings.HasPrefix(val, "[") {
		val = strings.Trim(val, "[]")
		var parts []string
		for _, p := range strings.Split(val, ",") {
			parts = append(parts, strings.Trim(strings.TrimSpace(p), `"'`))
		}
		val = strings.Join(parts, " ")
	} else {
		val = strings.Trim(val, `"'`)
	}
	return name, value{text: val, known: true}, true
}

// copiesOpen notes a program copied or linked in the line from a name
// only known when it runs (`ln -s "$(command -v git)" g`): what the new
// name runs is unknown, so running it is unseeable.
func (in *inspector) copiesOpen(c *command) {
	if c.complete() || len(c.words) < 3 {
		return
	}
	dest := c.words[len(c.words)-1]
	src := c.words[len(c.words)-2]
	if strings.ContainsAny(dest, "$`\"'*?[{") || strings.HasPrefix(src, "-") {
		return
	}
	in.aliases[dest], in.aliases["./"+strings.TrimPrefix(dest, "./")] = src, src
}

// cargoConfigFiles are the aliases of the cargo config files the line
// writes (.cargo/config.toml, .cargo/config, in any directory), which
// cargo reads from the working directory up; one the line fills with a
// program's output makes its aliases unknown.
func (in *inspector) cargoConfigFiles() map[string]value {
	aliases := map[string]value{}
	names := make([]string, 0, len(in.files))
	for name := range in.files {
		if strings.HasSuffix(name, ".cargo/config.toml") || strings.HasSuffix(name, ".cargo/config") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		f := in.files[name]
		if !f.known {
			aliases["\x00"] = value{} // any alias
			continue
		}
		section := ""
		for _, line := range strings.Split(f.text, "\n") {
			line = strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(line, "["):
				section = strings.Trim(line, "[] ")
			case section == "alias" && strings.Contains(line, "="):
				if name, v, ok := cargoConfigAlias("alias." + line); ok {
					aliases[name] = v
				}
			case section == "" && strings.HasPrefix(line, "alias."):
				if name, v, ok := cargoConfigAlias(line); ok {
					aliases[name] = v
				}
			}
		}
	}
	return aliases
}
