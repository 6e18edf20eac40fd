package hardening

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

// Wrappers (docs/hardening.md, "Wrappers"): programs that run the command
// in their operands, after options of their own (`taskset -c 0 rm -fr
// /`, `sudo -u root nice -n 5 git push`), or a command line given as an
// option's value (`su -c 'git push'`, `flock /tmp/l -c '…'`). The layer
// strips each with its own option grammar, so the command it runs is
// judged as written, at every release: at least every wrapper Codewhale
// 0.10.1's expander strips (gate/execpolicy/shell/expand_wrappers.go).

// wrapper is how a wrapper's own options and operands sit between it and
// the command it runs.
type wrapper struct {
	// short are the short options that take a value, in the rest of
	// their word or the next word.
	short string
	// switches are the short options that take none. Any other short
	// option may or may not take a value: both readings are followed.
	switches string
	// long are the long options that take a value (--user root,
	// --user=root); arity says how many when more than one.
	long  []string
	arity map[string]int
	// longSwitches are the long options that take none; any other takes
	// one only when written --name=value, or is read both ways.
	longSwitches []string
	// exact says the option lists are complete: an option not listed
	// takes no value (valgrind's and firejail's are all --name=value).
	exact bool
	// operands are the words before the command (chroot's NEWROOT,
	// timeout's DURATION, taskset's mask).
	operands int
	// code are the options whose value is a shell command line.
	code []string
	// joined says the wrapper runs its operands joined with spaces by
	// sh -c (watch, sg), so `watch 'git push; x'` runs two commands.
	joined bool
	// codeOnly says the wrapper runs no operand, only its code option
	// (script's operand is the file it writes); its options may follow
	// its operands.
	codeOnly bool
	// dash says a lone - is one of its options (sg - GROUP).
	dash bool
	// stops are switches after which the wrapper runs nothing of its
	// operands (`command -v NAME` only looks NAME up).
	stops string
	// shells are switches that make it run a shell when it is given no
	// command (sudo -s, sudo -i), which reads its standard input.
	shells string
}

// wrappers are the wrappers by command name: 0.10.1's table, with each
// option grammar checked against the program's own manual, and more.
var wrappers = map[string]wrapper{
	"sudo": {short: "ughpCDrtTRUac", switches: "AbBEeHiKklNnPSsVv", shells: "si",
		long:         strings.Fields("user group host prompt close-from chdir role type command-timeout chroot other-user auth-type login-class"),
		longSwitches: strings.Fields("login preserve-env non-interactive background edit shell stdin reset-timestamp remove-timestamp validate list set-home bell askpass preserve-groups")},
	"doas":         {short: "uCa", switches: "Lns", shells: "s"},
	"run0":         {short: "ugD", long: strings.Fields("user group nice chdir setenv unit property description slice machine"), longSwitches: strings.Fields("no-ask-password background pty pipe")},
	"pkexec":       {long: strings.Fields("user"), longSwitches: strings.Fields("disable-internal-agent keep-cwd")},
	"env":          {short: "uCPa", switches: "i0v", long: strings.Fields("unset chdir argv0"), longSwitches: strings.Fields("ignore-environment null debug")},
	"nohup":        {},
	"nice":         {short: "n", long: []string{"adjustment"}},
	"ionice":       {short: "cnpPu", switches: "t", long: strings.Fields("class classdata pid pgid uid"), longSwitches: []string{"ignore"}},
	"chrt":         {short: "TPD", switches: "abdefimoprRv", long: strings.Fields("sched-runtime sched-period sched-deadline"), longSwitches: strings.Fields("all-tasks batch deadline fifo idle other pid rr reset-on-fork verbose max"), operands: 1},
	"time":         {short: "fo", switches: "aplqvh", long: strings.Fields("format output"), longSwitches: strings.Fields("append portability verbose quiet")},
	"timeout":      {short: "sk", switches: "fpv", long: strings.Fields("signal kill-after"), longSwitches: strings.Fields("preserve-status foreground verbose"), operands: 1},
	"stdbuf":       {short: "ioe", long: strings.Fields("input output error")},
	"setsid":       {switches: "cfw", longSwitches: strings.Fields("ctty fork wait")},
	"command":      {switches: "p", stops: "vV"},
	"builtin":      {},
	"exec":         {short: "a", switches: "cl"},
	"unbuffer":     {switches: "p"},
	"busybox":      {longSwitches: strings.Fields("list list-full help")},
	"chroot":       {short: "ugG", long: strings.Fields("userspec groups"), longSwitches: []string{"skip-chdir"}, operands: 1},
	"proot":        {short: "rbmwqkRSvi", switches: "0Vh", long: strings.Fields("rootfs bind mount cwd pwd qemu kernel-release verbose")},
	"caffeinate":   {short: "tw", switches: "dimsu"},
	"arch":         {short: "ed"},
	"sandbox-exec": {short: "fnpD"},
	"noglob":       {},
	"nocorrect":    {},
	"-":            {},
	"nsenter": {short: "tSG", switches: "amuinpUCTrwFZcy", long: strings.Fields("target setuid setgid"),
		longSwitches: strings.Fields("all preserve-credentials no-fork mount uts ipc net pid user cgroup time root wd follow-context")},
	"unshare": {short: "SGRw", switches: "mupinUCTrcfk", long: strings.Fields("root wd setuid setgid propagation setgroups"),
		longSwitches: strings.Fields("fork mount-proc map-root-user map-current-user kill-child mount uts ipc net pid user cgroup time keep-caps")},
	"runuser": {short: "ugGcswf", switches: "lmpP", long: strings.Fields("user group supp-group shell whitelist-environment"),
		longSwitches: strings.Fields("login preserve-environment pty"), code: []string{"-c", "--command", "--session-command"}},
	"su": {short: "gGsw", switches: "lmpPf", long: strings.Fields("group supp-group shell whitelist-environment"),
		longSwitches: strings.Fields("login preserve-environment pty fast"), code: []string{"-c", "--command", "--session-command"}},
	"flock": {short: "wE", switches: "sxeunoFhV", long: strings.Fields("timeout wait conflict-exit-code"),
		longSwitches: strings.Fields("shared exclusive unlock nonblock nb close no-fork verbose"), operands: 1, code: []string{"-c", "--command"}},
	"script": {short: "EIOBTmot", switches: "aefqkh", long: strings.Fields("echo log-in log-out log-io log-timing logging-format output-limit"),
		longSwitches: strings.Fields("append return flush force quiet"), code: []string{"-c", "--command"}, codeOnly: true},
	"watch": {short: "nq", switches: "bcdeghprtwx", long: strings.Fields("interval equexit"),
		longSwitches: strings.Fields("beep color no-color differences errexit chgexit precise no-title no-wrap exec"), joined: true},
	"sg":       {operands: 1, code: []string{"-c"}, joined: true, dash: true},
	"wsl":      {short: "du", switches: "e", long: strings.Fields("distribution user cd shell-type"), longSwitches: []string{"exec"}},
	"fakeroot": {short: "lsib", switches: "uhv", long: strings.Fields("lib faked"), longSwitches: []string{"unknown-is-real"}},
	"taskset":  {switches: "acpV", longSwitches: strings.Fields("all-tasks cpu-list pid"), operands: 1},
	"prlimit":  {short: "po", long: strings.Fields("pid output"), longSwitches: strings.Fields("noheadings raw verbose")},
	"setpriv": {long: strings.Fields("reuid regid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label apparmor-profile landlock-access landlock-rule"),
		longSwitches: strings.Fields("clear-groups keep-groups init-groups nnp no-new-privs reset-env dump list-caps")},
	"strace": {short: "abeIoOpPsSuEX", switches: "cCdDfFhikNqrtTvVwxyYzZ",
		long:         strings.Fields("output expr trace signal status attach user env string-limit trace-path"),
		longSwitches: strings.Fields("follow-forks output-separately summary-only summary no-abbrev verbose")},
	"ltrace": {short: "aAeDFlnopsuxwX", switches: "bcCfhiLrStTV", long: strings.Fields("output library indent align"), longSwitches: strings.Fields("demangle help version")},
	"systemd-run": {short: "puEHM", switches: "rtqGdPS",
		long: strings.Fields("property unit description slice setenv uid gid nice working-directory host machine service-type on-active on-boot on-startup " +
			"on-unit-active on-unit-inactive on-calendar timer-property path-property socket-property"),
		longSwitches: strings.Fields("user system scope pty pipe wait collect quiet no-ask-password remain-after-exit same-dir no-block send-sighup")},
	"numactl": {short: "NmCipPw", switches: "laHsS",
		long:         strings.Fields("cpunodebind membind physcpubind interleave preferred preferred-many weighted-interleave huge offset length mode strict shmmode shmid shm file"),
		longSwitches: strings.Fields("localalloc all hardware show touch")},
	"firejail":         {exact: true},
	"xvfb-run":         {short: "efnpsw", switches: "alh", long: strings.Fields("error-file auth-file server-num xauth-protocol server-args wait"), longSwitches: strings.Fields("auto-servernum listen-tcp help")},
	"dbus-launch":      {longSwitches: strings.Fields("sh-syntax csh-syntax auto-syntax binary-syntax close-stderr exit-with-session exit-with-x11 version")},
	"dbus-run-session": {long: strings.Fields("config-file dbus-daemon"), longSwitches: strings.Fields("session version help")},
	"proxychains":      {short: "f", switches: "q"},
	"proxychains4":     {short: "f", switches: "q"},
	"torsocks":         {short: "uapP", switches: "idqh", long: strings.Fields("user pass address port"), longSwitches: strings.Fields("isolate debug quiet shell help version")},
	"tsocks":           {},
	"eatmydata":        {},
	"cpulimit":         {short: "lpe", switches: "mzikvh", long: strings.Fields("limit pid exe cpu"), longSwitches: strings.Fields("monitor-forks lazy include-children kill verbose help")},
	"trickle":          {short: "udwtlnL", switches: "svh"},
	"catchsegv":        {},
	"valgrind":         {switches: "qvhs", exact: true},
	"ssh-agent":        {short: "aEPtO", switches: "cdDsk"},
	"faketime":         {switches: "mf", long: []string{"date-prog"}, longSwitches: strings.Fields("exclude-monotonic help version"), operands: 1},
	"bwrap": {exact: true,
		long: strings.Fields("args argv0 userns userns2 pidns uid gid hostname chdir unsetenv lock-file sync-fd remount-ro exec-label file-label " +
			"proc dev tmpfs mqueue dir seccomp add-seccomp-fd block-fd userns-block-fd info-fd json-status-fd cap-add cap-drop perms size " +
			"overlay-src tmp-overlay ro-overlay"),
		arity: map[string]int{"bind": 2, "bind-try": 2, "ro-bind": 2, "ro-bind-try": 2, "dev-bind": 2, "dev-bind-try": 2, "setenv": 2,
			"symlink": 2, "file": 2, "bind-data": 2, "ro-bind-data": 2, "chmod": 2, "bind-fd": 2, "ro-bind-fd": 2, "overlay": 3}},
	"gosu":      {operands: 1},
	"su-exec":   {operands: 1},
	"setarch":   {switches: "vhVRFZLXBIST3", operands: 1},
	"linux32":   {switches: "vhVRFZLXBIST3"},
	"linux64":   {switches: "vhVRFZLXBIST3"},
	"cgexec":    {short: "g", longSwitches: []string{"sticky"}},
	"tini":      {short: "pe", switches: "hsvwgl"},
	"dumb-init": {short: "r", switches: "cvhV", longSwitches: strings.Fields("single-child verbose help version")},
	"ld.so": {long: strings.Fields("library-path inhibit-rpath audit preload argv0 glibc-hwcaps-prepend glibc-hwcaps-mask"),
		longSwitches: strings.Fields("list verify inhibit-cache list-tunables list-diagnostics help version")},
	// GNU coreutils as Homebrew installs them on macOS.
	"gtimeout": {short: "sk", switches: "fpv", long: strings.Fields("signal kill-after"), longSwitches: strings.Fields("preserve-status foreground verbose"), operands: 1},
	"gnice":    {short: "n", long: []string{"adjustment"}},
	"gnohup":   {},
	"gstdbuf":  {short: "ioe", long: strings.Fields("input output error")},
	"gchroot":  {short: "ugG", long: strings.Fields("userspec groups"), longSwitches: []string{"skip-chdir"}, operands: 1},
	"genv":     {short: "uCPa", switches: "i0v", long: strings.Fields("unset chdir argv0"), longSwitches: strings.Fields("ignore-environment null debug")},
}

// maxWrapperReadings bounds the readings of one wrapper's words (each
// unknown option doubles them).
const maxWrapperReadings = 64

// wrapperName is the wrapper a command name is, "" when none: the
// dynamic loader under its many file names (/lib64/ld-linux-x86-64.so.2,
// /lib/ld-musl-x86_64.so.1) is ld.so.
func wrapperName(name string) string {
	// Case-folded, as 0.10.1 folds them: on a case-insensitive file
	// system (macOS, Windows) `Sudo` is sudo.
	name = strings.ToLower(name)
	switch {
	case name == "ip" || name == "parallel" || name == "sem" || name == "rustup":
		return name
	case strings.HasPrefix(name, "ld-linux") && strings.Contains(name, ".so"),
		strings.HasPrefix(name, "ld-musl-") && strings.Contains(name, ".so"),
		strings.HasPrefix(name, "ld64.so"), name == "ld.so":
		return "ld.so"
	}
	if _, ok := wrappers[name]; ok {
		return name
	}
	return ""
}

// isWrapper says whether a command name is a wrapper's.
func isWrapper(name string) bool { return wrapperName(name) != "" }

// unwrap inspects the command a wrapper runs, each way its words may be
// read. Words built at run time take part as written: one may be an
// operand, or the command itself.
func (in *inspector) unwrap(c *command) {
	name := wrapperName(c.name())
	switch name {
	case "ip":
		in.ipNetns(c)
		return
	case "parallel", "sem":
		in.parallel(c)
		return
	case "rustup":
		// rustup [-v|-q] run [--install] TOOLCHAIN COMMAND…
		i := 1
		for i < c.open && strings.HasPrefix(c.words[i], "-") {
			i++
		}
		if i < c.open && c.words[i] == "run" {
			for i++; i < c.open && strings.HasPrefix(c.words[i], "-"); i++ {
			}
			in.unwrapped(c, i+1, false)
		}
		return
	}
	w := wrappers[name]
	words, known := c.words[1:], c.open-1
	if (name == "su" || name == "runuser") && !hasOption(c.args(), "-u", "--user") {
		in.su(c, w)
		return
	}
	if (name == "env" || name == "genv") && in.envSplit(c) {
		return
	}
	starts, code := w.readings(words, known)
	in.codeArgs(c, code, "")
	if w.codeOnly {
		return
	}
	for _, s := range starts {
		in.unwrapped(c, s+1, w.joined)
	}
	if len(starts) == 0 && w.shells != "" && c.complete() && c.stdin.given() && slices.ContainsFunc(c.args(), func(a string) bool {
		return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], w.shells) || a == "--shell" || a == "--login"
	}) {
		in.script("sh", c.depth+1, "`"+c.name()+"`", c.stdin)
	}
}

// codeArgs inspects the command lines a wrapper's options give it, run
// by shell ("" for sh).
func (in *inspector) codeArgs(c *command, code []codeArg, shell string) {
	for _, v := range code {
		via := "`" + c.name() + " " + v.option + "`"
		if v.open {
			// Code built at run time, read with its expansions in place.
			v.text = c.code(v.index + 1)
		}
		switch {
		case shell != "" && !isShell(path.Base(shell)):
			in.script(join([]string{shell, "-c", v.text}), c.depth+1, via, c.stdin)
		default:
			in.script(v.text, c.depth+1, via, c.stdin)
		}
	}
}

// unwrapped inspects the command's words from c.words[from] as the
// command a wrapper runs; joined, as one line sh -c runs.
func (in *inspector) unwrapped(c *command, from int, joined bool) {
	if from >= len(c.words) {
		return
	}
	// The NAME=VALUE words env and sudo take before the command are its
	// environment (PERL5OPT, NODE_OPTIONS…): they go on with it.
	for from > 1 && from-1 < c.open && isAssignment(c.words[from-1]) {
		from--
	}
	if !joined && c.complete() && !c.stdin.given() && bareShell(c.words[from:]) {
		// A shell given no script and no input: it runs nothing the
		// line says, as `bash` alone does (shell in inspect.go).
		return
	}
	text := tail(c, from, joined)
	// The same words with the same input: another reading of them.
	key := "\x01wrapped\x00" + text + "\x00" + c.stdin.from + "\x00" + strconv.FormatBool(c.stdin.known) + c.stdin.text
	if in.seen[key] {
		return
	}
	in.seen[key] = true
	// What the wrapper reads on its standard input, the command reads.
	in.script(text, c.depth+1, "`"+path.Base(c.words[0])+"`", c.stdin)
}

// bareShell says whether words run a shell with options only: no script,
// no -c (`bash`, `/bin/bash -l`, `sh -i`).
func bareShell(words []string) bool {
	if !isShell(path.Base(words[0])) {
		return false
	}
	for _, w := range words[1:] {
		if !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+") || !strings.HasPrefix(w, "--") && strings.Contains(w, "c") {
			return false
		}
	}
	return true
}

// tail is the command's words from c.words[from] as a shell line: the
// known ones quoted, those built at run time as written; joined, as code
// sh -c reads (c.codeFrom).
func tail(c *command, from int, joined bool) string {
	if joined {
		return c.codeFrom(from)
	}
	text := joinCommand(c.words[from:max(from, c.open)])
	if open := c.words[max(from, c.open):]; len(open) > 0 {
		text = strings.TrimPrefix(text+" "+strings.Join(open, " "), " ")
	}
	return text
}

// joinCommand writes a command's words as a shell line, its leading
// NAME=VALUE words as assignments (env and sudo take them).
func joinCommand(words []string) string {
	out := make([]string, len(words))
	assigning := true
	for i, w := range words {
		name, v, ok := strings.Cut(w, "=")
		if assigning && ok && isName(name) {
			out[i] = name + "=" + Quote(v)
			continue
		}
		assigning = false
		out[i] = Quote(w)
	}
	return strings.Join(out, " ")
}

func isName(s string) bool {
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// codeArg is the value of a wrapper's option that is a command line.
type codeArg struct {
	option string
	text   string
	// open says the value is built when the line runs: the word at
	// index of the wrapper's words.
	open  bool
	index int
}

// walkAt is a position of the walk over a wrapper's words.
type walkAt struct {
	i, operands int
	done        bool // after --
}

// readings are where the command a wrapper runs may start in its words
// (the first known words before the one at index known), and the
// command lines its options give. Where the grammar is ambiguous (an
// option it does not know) both readings are followed: an extra one is
// only judged, a missing one would be a command unseen.
func (w wrapper) readings(words []string, known int) (starts []int, code []codeArg) {
	seen := map[walkAt]bool{}
	stack := []walkAt{{operands: w.operands}}
	for len(stack) > 0 && len(seen) < 4*len(words)+8 && len(starts) < maxWrapperReadings {
		at := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if at.i >= len(words) || seen[at] {
			continue
		}
		seen[at] = true
		a := words[at.i]
		option := at.i < known && len(a) > 1 && a[0] == '-'
		switch {
		case w.dash && !at.done && a == "-" && at.i < known:
			stack = append(stack, walkAt{i: at.i + 1, operands: at.operands, done: at.done})
		case !at.done && a == "--" && at.i < known:
			stack = append(stack, walkAt{i: at.i + 1, operands: at.operands, done: true})
		case !at.done && option:
			if w.stopsAt(a) {
				continue
			}
			steps, value := w.option(words, at.i, known)
			if value != nil && !slices.Contains(code, *value) {
				code = append(code, *value)
			}
			for _, n := range steps {
				stack = append(stack, walkAt{i: at.i + n, operands: at.operands, done: at.done})
			}
		case at.operands > 0:
			stack = append(stack, walkAt{i: at.i + 1, operands: at.operands - 1, done: at.done})
		case w.codeOnly:
			// An operand: its options may come after it.
			stack = append(stack, walkAt{i: at.i + 1, operands: at.operands, done: at.done})
		default:
			if !slices.Contains(starts, at.i) {
				starts = append(starts, at.i)
			}
		}
	}
	slices.Sort(starts)
	return starts, code
}

// stopsAt says whether an option makes the wrapper run nothing.
func (w wrapper) stopsAt(a string) bool {
	return w.stops != "" && !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], w.stops)
}

// option reads the option at words[i]: how many words on each reading
// may follow it, and the command line it gives when it is a code option.
func (w wrapper) option(words []string, i, known int) (steps []int, code *codeArg) {
	a := words[i]
	valueAt := func(opt string, inline string, hasInline bool) (*codeArg, int) {
		switch {
		case hasInline:
			return &codeArg{option: opt, text: inline}, 1
		case i+1 < known:
			return &codeArg{option: opt, text: words[i+1]}, 2
		case i+1 < len(words):
			return &codeArg{option: opt, open: true, index: i + 1}, 2
		}
		return nil, 1
	}
	if long, ok := strings.CutPrefix(a, "--"); ok {
		name, inline, hasInline := strings.Cut(long, "=")
		full, kind := w.longOption(name)
		switch {
		case kind == "code":
			v, n := valueAt("--"+full, inline, hasInline)
			return []int{n}, v
		case hasInline, kind == "switch":
			return []int{1}, nil
		case kind == "value":
			return []int{1 + max(1, w.arity[full])}, nil
		case w.exact:
			return []int{1}, nil
		}
		return []int{1, 2}, nil
	}
	flags := a[1:]
	for k := 0; k < len(flags); k++ {
		r := flags[k]
		rest := flags[k+1:]
		switch {
		case slices.Contains(w.code, "-"+string(r)):
			v, n := valueAt("-"+string(r), rest, rest != "")
			return []int{n}, v
		case strings.IndexByte(w.short, r) >= 0:
			if rest != "" {
				return []int{1}, nil
			}
			return []int{2}, nil
		case '0' <= r && r <= '9', strings.IndexByte(w.switches, r) >= 0, w.exact:
		default:
			return []int{1, 2}, nil
		}
	}
	return []int{1}, nil
}

// longOption is the long option a name given on the command line is
// (GNU getopt_long takes any unambiguous prefix), and its kind: "code",
// "value", "switch", or "" when the wrapper's grammar does not know it.
func (w wrapper) longOption(name string) (string, string) {
	kinds := map[string]string{}
	for _, c := range w.code {
		if l, ok := strings.CutPrefix(c, "--"); ok {
			kinds[l] = "code"
		}
	}
	for _, l := range w.long {
		kinds[l] = "value"
	}
	for l := range w.arity {
		kinds[l] = "value"
	}
	for _, l := range w.longSwitches {
		kinds[l] = "switch"
	}
	if k, ok := kinds[name]; ok || name == "" {
		return name, k
	}
	full, kind := "", ""
	for l, k := range kinds {
		if !strings.HasPrefix(l, name) {
			continue
		}
		if kind != "" && kind != k {
			return "", "" // ambiguous
		}
		full, kind = l, k
	}
	return full, kind
}

func hasOption(args []string, short, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == short || a == long || strings.HasPrefix(a, long+"=") || len(a) > 2 && a[:2] == short {
			return true
		}
	}
	return false
}

// su inspects what su (and runuser without -u) runs: the command line
// of -c, by the shell -s names; or, after the user, a shell's arguments.
// su takes its options anywhere among its words.
func (in *inspector) su(c *command, w wrapper) {
	words, known := c.words[1:], c.open-1
	shell := ""
	var code []codeArg
	user := -1
	var rest []string // the shell's arguments, after the user
	operand := func(i int) {
		switch {
		case user < 0:
			user = i
		case i < known:
			rest = append(rest, Quote(words[i]))
		default:
			rest = append(rest, words[i])
		}
	}
	for i := 0; i < len(words); i++ {
		a := words[i]
		switch {
		case i >= known:
			operand(i)
		case a == "--":
			for i++; i < len(words); i++ {
				operand(i)
			}
		case a == "-" || a == "-l" || a == "--login":
		case len(a) > 1 && a[0] == '-':
			if (a == "-s" || a == "--shell") && i+1 < known {
				shell = words[i+1]
			} else if v, ok := strings.CutPrefix(a, "--shell="); ok {
				shell = v
			}
			steps, v := w.option(words, i, known)
			if v != nil {
				code = append(code, *v)
			}
			i += steps[len(steps)-1] - 1
		default:
			operand(i)
		}
	}
	in.codeArgs(c, code, shell)
	if len(code) == 0 && len(rest) == 0 && c.complete() && c.stdin.given() {
		// su [USER]: the user's shell reads its standard input.
		if shell == "" {
			shell = "sh"
		}
		in.script(Quote(shell), c.depth+1, "`"+c.name()+"`", c.stdin)
	}
	if len(code) == 0 && len(rest) > 0 {
		// su USER ARGS…: the user's shell runs ARGS.
		if shell == "" {
			shell = "sh"
		}
		in.script(Quote(shell)+" "+strings.Join(rest, " "), c.depth+1, "`"+c.name()+"`", c.stdin)
	}
}

// envSplit inspects env -S STRING / --split-string=STRING: env splits
// the string into words, as it does, and reads them in its place. It
// says whether there was one.
func (in *inspector) envSplit(c *command) bool {
	args := c.args()
	for i := 0; i < len(args); i++ {
		a := args[i]
		var value string
		var end int
		switch {
		case a == "--":
			return false
		case !strings.HasPrefix(a, "-") || a == "-":
			if !strings.Contains(a, "=") {
				return false // the command
			}
			continue
		case strings.HasPrefix(a, "--"):
			name, inline, hasInline := strings.Cut(a[2:], "=")
			full, _ := wrappers["env"].longOption(name)
			if name != "" && strings.HasPrefix("split-string", name) && (full == "" || full == "split-string") {
				value, end = inline, i+1
				if !hasInline {
					if i+1 >= len(args) {
						return in.splitOpen(c)
					}
					value, end = args[i+1], i+2
				}
			} else if !hasInline && slices.Contains(wrappers["env"].long, full) {
				i++
				continue
			} else {
				continue
			}
		default:
			k := strings.IndexAny(a, "SuCPa")
			if k < 0 {
				continue
			}
			if a[k] != 'S' {
				if k == len(a)-1 {
					i++
				}
				continue
			}
			value, end = a[k+1:], i+1
			if value == "" {
				if i+1 >= len(args) {
					return in.splitOpen(c)
				}
				value, end = args[i+1], i+2
			}
		}
		words, ok := splitString(value)
		if !ok {
			in.unseeable("`env -S` splits a string holding variables only known when the line runs")
			return true
		}
		// The options before, the string's words, then the rest.
		before := slices.Clone(args[:i])
		if a[1] != '-' && len(a) > 2 && strings.IndexByte(a, 'S') > 1 {
			before = append(before, a[:strings.IndexByte(a, 'S')])
		}
		rest := append(append(before, words...), args[end:]...)
		in.script(Quote(c.words[0])+" "+join(rest)+openTail(c), c.depth+1, "`env -S`", c.stdin)
		return true
	}
	return false
}

func (in *inspector) splitOpen(c *command) bool {
	if !c.complete() {
		in.unseeable("`env -S` splits a string built when the line runs")
		return true
	}
	return false
}

// splitString splits env -S's string as GNU env does: blanks separate
// words; single quotes keep everything; double quotes and unquoted text
// take backslash escapes (\_ is a blank that separates outside quotes
// and a space inside them, \c ends the string); # starting a word starts
// a comment; ${NAME} is a variable, unknown here (ok false).
func splitString(s string) ([]string, bool) {
	var words []string
	var b strings.Builder
	started := false
	var quote byte
	flush := func() {
		if started {
			words = append(words, b.String())
			b.Reset()
			started = false
		}
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				b.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			if quote == ch {
				quote = 0
			} else if quote == 0 {
				quote, started = ch, true
			} else {
				b.WriteByte(ch)
			}
		case ch == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case '_':
				if quote == 0 {
					flush()
				} else {
					b.WriteByte(' ')
				}
				continue
			case 'c':
				flush()
				return words, true
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			default:
				b.WriteByte(e)
			}
			started = true
		case ch == '$' && i+1 < len(s) && s[i+1] == '{':
			return nil, false
		case quote == 0 && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v'):
			flush()
		case quote == 0 && ch == '#' && !started:
			flush()
			return words, true
		default:
			b.WriteByte(ch)
			started = true
		}
	}
	flush()
	return words, true
}

// ipNetns inspects `ip [OPTIONS] netns exec NAME COMMAND…` (ip takes any
// prefix of its words: `ip netns e`).
func (in *inspector) ipNetns(c *command) {
	args := c.args()
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch strings.TrimLeft(args[i], "-") {
		case "n", "netns", "b", "batch", "f", "family", "rc", "rcvbuf", "l", "loops":
			i++
		}
		i++
	}
	if i+1 < len(args) && len(args[i]) >= 4 && strings.HasPrefix("netns", args[i]) && args[i+1] != "" && strings.HasPrefix("exec", args[i+1]) {
		if slices.ContainsFunc(args[:i], func(a string) bool { return a == "-a" || a == "-all" || a == "--all" }) {
			in.unwrapped(c, i+3, false) // in every namespace: no NAME
			return
		}
		in.unwrapped(c, i+4, false) // after NAME
	}
}

// parallelValued are GNU parallel's options that take a value.
var parallelValued = strings.Fields("-j --jobs -P --max-procs -S --sshlogin -I --replace -d --delimiter -a --arg-file -E --eof -n --max-args -N " +
	"--max-replace-args -L --max-lines -l -s --max-chars --colsep -C --tagstring --joblog --results --res --tmpdir --env --halt --delay --timeout " +
	"--retries --workdir --wd --basefile --bf --transfer-file --tf --return --sshloginfile --slf --sqlmaster --sqlandworker --shebang-wrap " +
	"--termseq --memfree --load --nice --block --block-size --recstart --recend --header --id --semaphorename --fg --profile -J --pipe-part --rpl --plus")

// parallel inspects the commands GNU parallel (and sem) runs through a
// shell: its command with each argument after :::, each argument as a
// command when it has none, or with the lines it reads.
func (in *inspector) parallel(c *command) {
	args := c.args()
	var cmd []string
	i := 0
	for ; i < len(args) && args[i] != ":::" && args[i] != "::::" && args[i] != ":::+" && args[i] != "::::+"; i++ {
		a := args[i]
		switch {
		case len(cmd) > 0:
			cmd = append(cmd, a)
		case a == "--":
		case slices.Contains(parallelValued, a):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			cmd = append(cmd, a)
		}
	}
	command := strings.Join(cmd, " ")
	via := "`" + c.name() + "`"
	// with is the command given one argument, quoted as parallel quotes
	// it; with no command, the argument is the command line.
	with := func(arg string) string {
		if command == "" {
			return arg
		}
		if arg != `"$PARALLEL_INPUT"` && arg != "$PARALLEL_INPUT" {
			arg = Quote(arg)
		}
		if strings.Contains(command, "{}") {
			return strings.ReplaceAll(command, "{}", arg)
		}
		return command + " " + arg
	}
	if i < len(args) {
		fromFile := false
		for k := i; k < len(args); k++ {
			switch a := args[k]; {
			case a == ":::" || a == ":::+":
			case a == "::::" || a == "::::+":
				// Arguments read from a file, only known when it runs.
				fromFile = true
				k++
			default:
				in.line(with(a)+openTail(c), c.depth+1, via)
			}
		}
		switch {
		case (fromFile || !c.complete()) && command == "":
			in.unseeable(via + " runs commands a file or the line gives it when it runs")
		case fromFile:
			in.line(with(`"$PARALLEL_INPUT"`)+openTail(c), c.depth+1, via)
		}
		return
	}
	pipe := slices.ContainsFunc(args, func(a string) bool { return a == "--pipe" || a == "--pipepart" || a == "--pipe-part" })
	switch {
	case !c.complete() || pipe && command != "":
		// --pipe hands its input to the command's standard input.
		in.line(command+openTail(c), c.depth+1, via)
	case c.stdin.known:
		for _, l := range strings.Split(strings.TrimSpace(c.stdin.text), "\n") {
			in.line(with(l), c.depth+1, via+" reading "+describeFeed(c.stdin))
		}
	case command == "":
		in.unseeable(via + " runs the commands " + orInput(c.stdin.from) + " gives it")
	default:
		// The words it reads are only known when it runs, each of the
		// form its producer gives (as xargs's).
		form := c.stdin.form
		form.Many = true
		in.patterns["PARALLEL_INPUT"] = form
		in.line(with("$PARALLEL_INPUT"), c.depth+1, via+" reading "+describeFeed(c.stdin))
	}
}

func orInput(from string) string {
	if from == "" {
		return "its input"
	}
	return from
}

// isAssignment says whether a word is NAME=VALUE.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && isName(name)
}
