package shell

import (
	"strings"

	"github.com/codewhale-ls/codewhale-ls/gate/ascii"
)

// wrapperGrammar is how a wrapper word's own options and operands sit
// between it and the command it runs (docs/codewhale/releases/0.10.1.md
// A.3.2, N9). An option the grammar does not list may or may not take a
// value, so the wrapper walk reads it both ways.
type wrapperGrammar struct {
	// shortValues take the rest of the word or the next word as value.
	shortValues string
	// shortSwitches take no value.
	shortSwitches string
	// longValues may take the next word as value.
	longValues []string
	// longSwitches take no value.
	longSwitches []string
	// operands are required before the command (`chroot NEWROOT`).
	operands int
}

// fields keeps the option tables below readable: one string per list.
func fields(s string) []string { return strings.Fields(s) }

// wrapperGrammars is 0.10.1's wrapper table: privilege, sandbox,
// scheduling, tracing and environment launchers that run their operands as
// a command. Keys are command names (lower-cased basename, `.exe` dropped).
var wrapperGrammars = map[string]wrapperGrammar{
	"sudo": {shortValues: "ughpCDrtTRUac", shortSwitches: "AbBEeHiKklNnPSsVv",
		longValues:   fields("user group host prompt close-from chdir role type command-timeout chroot other-user auth-type login-class"),
		longSwitches: fields("login preserve-env non-interactive background edit shell stdin reset-timestamp remove-timestamp validate list set-home bell askpass preserve-groups")},
	"doas":    {shortValues: "uCa", shortSwitches: "Lns"},
	"env":     {shortValues: "uCSPa", shortSwitches: "i0v", longValues: fields("unset chdir argv0"), longSwitches: fields("ignore-environment null debug")},
	"nohup":   {},
	"nice":    {shortValues: "n", longValues: fields("adjustment")},
	"ionice":  {shortValues: "cnpPu", shortSwitches: "t", longValues: fields("class classdata pid pgid uid"), longSwitches: fields("ignore")},
	"time":    {shortValues: "fo", shortSwitches: "aplqvh", longValues: fields("format output"), longSwitches: fields("append portability verbose quiet")},
	"timeout": {shortValues: "sk", shortSwitches: "fpv", longValues: fields("signal kill-after"), longSwitches: fields("preserve-status foreground verbose"), operands: 1},
	"stdbuf":  {shortValues: "ioe", longValues: fields("input output error")},
	"setsid":  {shortSwitches: "cfw", longSwitches: fields("ctty fork wait")},
	"command": {shortSwitches: "pvV"},
	"builtin": {},
	"exec":    {shortValues: "a", shortSwitches: "cl"},
	"xargs": {shortValues: "adEILnPsJSR", shortSwitches: "0eiloprtx",
		longValues:   fields("arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var"),
		longSwitches: fields("null no-run-if-empty interactive verbose exit open-tty show-limits")},
	"unbuffer":     {shortSwitches: "p"},
	"busybox":      {},
	"chroot":       {shortValues: "ugG", longValues: fields("userspec groups"), longSwitches: fields("skip-chdir"), operands: 1},
	"proot":        {shortValues: "rbmwqkRSvi", shortSwitches: "0Vh", longValues: fields("rootfs bind mount cwd pwd qemu kernel-release verbose")},
	"caffeinate":   {shortValues: "tw", shortSwitches: "dimsu"},
	"arch":         {shortValues: "ed"},
	"sandbox-exec": {shortValues: "fnpD"},
	"noglob":       {},
	"nocorrect":    {},
	"-":            {},
	"nsenter":      {shortValues: "tSG", shortSwitches: "amuinpUCTrwFZcy", longValues: fields("target setuid setgid"), longSwitches: fields("all preserve-credentials no-fork")},
	"unshare": {shortValues: "SGRw", shortSwitches: "mupinUCTrcfk", longValues: fields("root wd setuid setgid propagation setgroups"),
		longSwitches: fields("fork mount-proc map-root-user map-current-user kill-child")},
	"runuser": {shortValues: "ugGcswf", shortSwitches: "lmpP", longValues: fields("user group supp-group command shell whitelist-environment session-command"),
		longSwitches: fields("login preserve-environment pty")},
	"flock": {shortValues: "wEc", shortSwitches: "sxunoFh", longValues: fields("timeout wait conflict-exit-code command"),
		longSwitches: fields("shared exclusive unlock nonblock nb close no-fork verbose"), operands: 1},
	"watch": {shortValues: "nq", shortSwitches: "bcdeghprtwx", longValues: fields("interval equexit"),
		longSwitches: fields("beep color no-color differences errexit chgexit precise no-title no-wrap exec")},
	"wsl":      {shortValues: "du", shortSwitches: "e", longValues: fields("distribution user cd shell-type"), longSwitches: fields("exec")},
	"pkexec":   {longValues: fields("user"), longSwitches: fields("disable-internal-agent keep-cwd")},
	"run0":     {shortValues: "ugD", longValues: fields("user group nice chdir setenv unit property description slice machine"), longSwitches: fields("no-ask-password background pty pipe")},
	"fakeroot": {shortValues: "lsib", shortSwitches: "uhv", longValues: fields("lib faked"), longSwitches: fields("unknown-is-real")},
	"taskset":  {shortSwitches: "acpV", longSwitches: fields("all-tasks cpu-list pid"), operands: 1},
	"chrt": {shortValues: "TPD", shortSwitches: "abdefimoprRv", longValues: fields("sched-runtime sched-period sched-deadline"),
		longSwitches: fields("all-tasks batch deadline fifo idle other pid rr reset-on-fork verbose max"), operands: 1},
	"prlimit": {shortValues: "po", longValues: fields("pid output"), longSwitches: fields("noheadings raw verbose")},
	"strace": {shortValues: "abeIoOpPsSuEX", shortSwitches: "cCdDfFhikNqrtTvVwxyYzZ",
		longValues:   fields("output expr trace signal status attach user env string-limit trace-path"),
		longSwitches: fields("follow-forks output-separately summary-only summary no-abbrev verbose")},
	"ltrace": {shortValues: "aAeDFlnopsuxwX", shortSwitches: "bcCfhiLrStTV", longValues: fields("output library indent align"), longSwitches: fields("demangle help version")},
	"systemd-run": {shortValues: "puEHM", shortSwitches: "rtqGdPS",
		longValues: fields("property unit description slice setenv uid gid nice working-directory host machine service-type on-active on-boot on-startup " +
			"on-unit-active on-unit-inactive on-calendar timer-property path-property socket-property"),
		longSwitches: fields("user system scope pty pipe wait collect quiet no-ask-password remain-after-exit same-dir no-block send-sighup")},
	"numactl": {shortValues: "NmCipPw", shortSwitches: "laHsS",
		longValues:   fields("cpunodebind membind physcpubind interleave preferred preferred-many weighted-interleave huge offset length mode strict shmmode shmid shm file"),
		longSwitches: fields("localalloc all hardware show touch")},
	"firejail":         {longSwitches: fields("noprofile quiet private private-dev private-tmp nonewprivs noroot seccomp x11 appimage allusers")},
	"xvfb-run":         {shortValues: "efnpsw", shortSwitches: "alh", longValues: fields("error-file auth-file server-num xauth-protocol server-args wait"), longSwitches: fields("auto-servernum listen-tcp help")},
	"dbus-launch":      {longSwitches: fields("sh-syntax csh-syntax auto-syntax binary-syntax close-stderr exit-with-session exit-with-x11 version")},
	"dbus-run-session": {longValues: fields("config-file dbus-daemon"), longSwitches: fields("session version help")},
	"sg":               {shortSwitches: "c", operands: 1},
	"proxychains":      {shortValues: "f", shortSwitches: "q"},
	"proxychains4":     {shortValues: "f", shortSwitches: "q"},
	"torsocks":         {shortValues: "uapP", shortSwitches: "idqh", longValues: fields("user pass address port"), longSwitches: fields("isolate debug quiet shell help version")},
	"tsocks":           {},
	"eatmydata":        {},
	"cpulimit":         {shortValues: "lpe", shortSwitches: "mzikvh", longValues: fields("limit pid exe cpu"), longSwitches: fields("monitor-forks lazy include-children kill verbose help")},
	"setpriv": {longValues: fields("reuid regid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label apparmor-profile landlock-access landlock-rule"),
		longSwitches: fields("clear-groups keep-groups init-groups nnp no-new-privs reset-env dump list-caps")},
	"trickle": {shortValues: "udwtlnL", shortSwitches: "svh"},
	// GNU coreutils as Homebrew installs them on macOS.
	"gtimeout": {shortValues: "sk", shortSwitches: "fpv", longValues: fields("signal kill-after"), longSwitches: fields("preserve-status foreground verbose"), operands: 1},
	"gnice":    {shortValues: "n", longValues: fields("adjustment")},
	"gnohup":   {},
	"gstdbuf":  {shortValues: "ioe", longValues: fields("input output error")},
	"gchroot":  {shortValues: "ugG", longValues: fields("userspec groups"), longSwitches: fields("skip-chdir"), operands: 1},
}

// reservedLeaders are shell reserved words that may open a simple command
// without being its command word (`if rm x; then`, `! rm x`).
var reservedLeaders = map[string]bool{
	"if": true, "then": true, "elif": true, "else": true, "do": true, "while": true,
	"until": true, "!": true, "coproc": true,
}

// commandName is the name a word gives a command for table lookups: the
// ASCII-lowered text after the last `/` or `\` (the word itself when that is
// empty), without a `.exe` suffix.
func commandName(word string) string {
	name := word
	if base := basename(word); base != "" {
		name = base
	}
	name = ascii.Lower(name)
	if stem, ok := strings.CutSuffix(name, ".exe"); ok && stem != "" {
		return stem
	}
	return name
}
