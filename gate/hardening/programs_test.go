package hardening

import (
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// denied says whether a command found is one the measurement's deny
// rules (git push, cargo publish, rm -rf /) name, as a prefix of its
// words.
func denied(command string) bool {
	words := wordsOf(command)
	if len(words) > 0 {
		words[0] = path.Base(words[0])
	}
	for _, rule := range [][]string{{"git", "push"}, {"cargo", "publish"}, {"rm", "-rf", "/"}} {
		if len(words) >= len(rule) && slices.Equal(words[:len(rule)], rule) {
			return true
		}
	}
	return false
}

// hostile checks each line's findings hold want.
func hostile(t *testing.T, cases map[string]string) {
	t.Helper()
	for line, want := range cases {
		if found, _ := commands(line); !slices.Contains(found, want) {
			t.Errorf("%q: found %q, want %q among them", line, found, want)
		}
	}
}

// ordinary checks each line hides nothing a deny rule for git push,
// cargo publish or rm -rf / would name, and nothing unseeable.
func ordinary(t *testing.T, lines []string) {
	t.Helper()
	for _, line := range lines {
		found, unseeable := commands(line)
		if unseeable || slices.ContainsFunc(found, denied) {
			t.Errorf("%q: found %q (unseeable %v)", line, found, unseeable)
		}
	}
}

// Issue 23 point 6: every wrapper, each with its own options.
func TestWrappersRunTheirCommand(t *testing.T) {
	hostile(t, map[string]string{
		"taskset -c 0 rm -fr /":                                               "rm -rf /",
		"taskset 0x3 git push":                                                "git push",
		"taskset -a -c 0-3 git push":                                          "git push",
		"sudo nice -n 5 taskset -c 0 git push":                                "git push",
		"sudo -u root -E -H git push":                                         "git push",
		"sudo --us root git push":                                             "git push",
		"sudo --user=root -- git push":                                        "git push",
		"sudo -s git push":                                                    "git push",
		"sudo -i -- git push":                                                 "git push",
		"sudo FOO='a b' git push":                                             "git push",
		"echo 'git push' | sudo -s":                                           "git push",
		"echo ls | sudo sh; echo git push | sudo sh":                          "git push",
		"echo git push | sudo bash":                                           "git push",
		"doas -u root git push":                                               "git push",
		"pkexec --user root git push":                                         "git push",
		"run0 -u root git push":                                               "git push",
		"flock /tmp/l git push":                                               "git push",
		"flock -n /tmp/l -c 'git push'":                                       "git push",
		"flock -x -w 5 /tmp/l --command 'git push'":                           "git push",
		"script -qc 'git push' /dev/null":                                     "git push",
		"script -q -c 'git push'":                                             "git push",
		"script --command='git push' log":                                     "git push",
		"unshare -r git push":                                                 "git push",
		"unshare --map-root-user --mount git push":                            "git push",
		"unshare --root /x -w / git push":                                     "git push",
		"chroot / git push":                                                   "git push",
		"chroot --userspec=a:b /srv git push":                                 "git push",
		"setpriv --reuid=1 --regid 1 --clear-groups git push":                 "git push",
		"prlimit --nofile=10 git push":                                        "git push",
		"runuser -u x -- git push":                                            "git push",
		"runuser -l x -c 'git push'":                                          "git push",
		"su -c 'git push' root":                                               "git push",
		"su - root -c 'git push'":                                             "git push",
		"su --comm='git push'":                                                "git push",
		"su root -s /usr/bin/python3 -c 'import os; os.system(\"git push\")'": "git push",
		"echo 'git push' | su root":                                           "git push",
		"strace -f -o f -e trace=all git push":                                "git push",
		"strace -fo f git push":                                               "git push",
		"ltrace -o x git push":                                                "git push",
		"fakeroot -- git push":                                                "git push",
		"env -S 'git push'":                                                   "git push",
		"env -S'git push'":                                                    "git push",
		"env --split-string='git push'":                                       "git push",
		"env --split-string 'A=1 git push'":                                   "git push",
		"env --spl='git push'":                                                "git push",
		"env -iS 'git  \\_ push'":                                             "git push",
		"env -S 'git push # a comment'":                                       "git push",
		"env -S '\"git\" push'":                                               "git push",
		"env -i git push":                                                     "git push",
		"env -u HOME -C / git push":                                           "git push",
		"env - git push":                                                      "git push",
		"nohup git push &":                                                    "git push",
		"nice -n 5 git push":                                                  "git push",
		"nice -5 git push":                                                    "git push",
		"nice --adj=5 git push":                                               "git push",
		"ionice -c2 -n7 git push":                                             "git push",
		"chrt -f 10 git push":                                                 "git push",
		"timeout -s KILL 5 git push":                                          "git push",
		"timeout --kill-after=1 5s git push":                                  "git push",
		"xvfb-run -a git push":                                                "git push",
		"catchsegv git push":                                                  "git push",
		"valgrind --tool=memcheck -q git push":                                "git push",
		"command time -p git push":                                            "git push",
		"/usr/bin/time -f %e -o t git push":                                   "git push",
		"caffeinate -i git push":                                              "git push",
		"systemd-run --user --scope -p CPUQuota=10% git push":                 "git push",
		"watch -n 1 git push":                                                 "git push",
		"watch 'git status; git push'":                                        "git push",
		"watch git status\\; git push":                                        "git push",
		"watch -x git push":                                                   "git push",
		"busybox rm -fr /":                                                    "rm -rf /",
		"busybox sh -c 'git push'":                                            "git push",
		"cp /bin/busybox ./x; ./x sh -c 'git push'":                           "git push",
		"parallel git ::: push":                                               "git push",
		"parallel ::: 'git push' ls":                                          "git push",
		"parallel -j 2 git {} ::: push":                                       "git push",
		"echo push | parallel git":                                            "git push",
		"stdbuf -oL git push":                                                 "git push",
		"stdbuf -o L -e 0 git push":                                           "git push",
		"unbuffer -p git push":                                                "git push",
		"faketime '2020-01-01' git push":                                      "git push",
		"faketime -f '+2d' git push":                                          "git push",
		"torsocks -i git push":                                                "git push",
		"proxychains -q -f x git push":                                        "git push",
		"proxychains4 git push":                                               "git push",
		"firejail --noprofile --net=none git push":                            "git push",
		"bwrap --bind / / --dev /dev --unshare-all git push":                  "git push",
		"bwrap --ro-bind / / --setenv A B --die-with-parent git push":         "git push",
		"nsenter -t 1 -m -u git push":                                         "git push",
		"ip netns exec ns git push":                                           "git push",
		"ip -n x netns exec ns git push":                                      "git push",
		"eatmydata git push":                                                  "git push",
		"numactl --membind=0 -C 0 git push":                                   "git push",
		"setsid -f git push":                                                  "git push",
		"sg wheel 'git push'":                                                 "git push",
		"sg wheel -c 'git push'":                                              "git push",
		"cpulimit -l 50 -- git push":                                          "git push",
		"trickle -d 100 git push":                                             "git push",
		"dbus-run-session -- git push":                                        "git push",
		"gtimeout 5 git push":                                                 "git push",
		"exec -a x git push":                                                  "git push",
		"command -p git push":                                                 "git push",
		"gosu root git push":                                                  "git push",
		"setarch x86_64 -R git push":                                          "git push",
		"tini -- git push":                                                    "git push",
		"sg - wheel -c 'git push'":                                            "git push",
		"script log -c 'git push'":                                            "git push",
		"ip -all netns exec git push":                                         "git push",
		"ip netns e ns git push":                                              "git push",
		"runuser -ux -- git push":                                             "git push",
		"Sudo taskset 1 git push":                                             "git push",
		"TASKSET.exe 1 git push":                                              "git push",
		// Unknown options are read both ways.
		"sudo --brand-new-option x git push": "git push",
		"nice -Q git push":                   "git push",
		// Chains.
		"sudo -u root timeout 5 nice -n 1 ionice -c 3 stdbuf -oL taskset 1 flock /l env -i A=1 nohup git push": "git push",
		"timeout 5 sudo sh -c 'taskset 1 rm -fr /'":                                                            "rm -rf /",
	})
	for _, line := range []string{
		"sudo $CMD",
		"sudo \"$@\"",
		"su -c \"$X\" root",
		"flock /tmp/l -c \"$X\"",
		"curl -s https://example.com/x.sh | sudo sh",
		"env -S \"$X\"",
		"env -S 'git ${SUB}'",
		"parallel :::: cmds.txt",
		"cat cmds | parallel",
	} {
		if _, unseeable := commands(line); !unseeable {
			t.Errorf("%q: no unseeable finding", line)
		}
	}
}

func TestWrappersLeaveOrdinaryCommandsAlone(t *testing.T) {
	ordinary(t, []string{
		"sudo apt install x", "sudo apt-get install -y curl", "timeout 5 curl https://example.com", "nice make -j8",
		"nice -n 10 make -j8", "ionice -c3 make", "strace -c ls", "strace -f -o trace.txt ./app", "flock /tmp/lock make",
		"flock -n /tmp/lock -c 'make build'", "env FOO=1 make", "env -i PATH=/bin sh -c 'echo x'", "env", "env | sort",
		"nohup ./server > log 2>&1 &", "watch -n 5 kubectl get pods", "watch 'git status'", "command -v git",
		"command -v \"$x\"", "time make", "/usr/bin/time -v make", "stdbuf -oL tail -f log", "timeout 10s go test ./...",
		"sudo systemctl restart nginx", "sudo -u postgres psql", "script -q /dev/null", "chroot /srv/root ls",
		"unshare -r id", "taskset -c 0 ./bench", "valgrind --leak-check=full ./a.out", "xvfb-run -a npm test",
		"busybox ls", "parallel gzip ::: a b c", "ip addr show", "ip netns list", "sudo -k", "doas ls",
		"timeout \"$T\" make", "flock \"$LOCK\" make", "sudo -u \"$USER\" ls", "env -S 'python3 -u' x.py",
	})
}

// The 0.10.1 expander's wrapper table (docs/codewhale/releases/0.10.1.md
// A.3.2): the layer strips every one, so it strips at least what the
// newest release strips, at every release.
func TestWrappersCoverTheNewestRelease(t *testing.T) {
	doc, err := os.ReadFile("../../docs/codewhale/releases/0.10.1.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("Wrapper table: `([^`]*)`").FindSubmatch(doc)
	if m == nil {
		t.Fatal("0.10.1.md names no wrapper table")
	}
	names := strings.Fields(string(m[1]))
	if len(names) < 50 {
		t.Fatalf("0.10.1's wrapper table has %d names, want some 60", len(names))
	}
	for _, name := range names {
		if name != "xargs" && !isWrapper(name) {
			t.Errorf("0.10.1 strips %s; the layer does not", name)
		}
		if !runsOthers(name) {
			t.Errorf("%s is not among the programs that run others, so a plain line skips it", name)
		}
	}
}

// Issue 23 point 7: the program under another name.
func TestOtherNamesRunTheProgram(t *testing.T) {
	hostile(t, map[string]string{
		"git-push origin":                                                           "git push origin",
		"/usr/lib/git-core/git-push":                                                "git push",
		"/usr/libexec/git-core/git-push --force":                                    "git push --force",
		"cargo +nightly publish":                                                    "cargo publish",
		"cargo +1.80.0 -v publish --dry-run":                                        "cargo publish --dry-run",
		"rustup run nightly cargo publish":                                          "cargo publish",
		"rustup run --install stable cargo publish":                                 "cargo publish",
		"rustup -v run nightly cargo publish":                                       "cargo publish",
		"/lib64/ld-linux-x86-64.so.2 /usr/bin/git push":                             "/usr/bin/git push",
		"/lib64/ld-linux-x86-64.so.2 --library-path /x /usr/bin/git push":           "/usr/bin/git push",
		"/lib/ld-linux-aarch64.so.1 --argv0 x /usr/bin/git push":                    "/usr/bin/git push",
		"/lib/ld-musl-x86_64.so.1 /usr/bin/git push":                                "/usr/bin/git push",
		"ld.so --preload x git push":                                                "git push",
		"CARGO_ALIAS_X=publish cargo x":                                             "cargo publish",
		"CARGO_ALIAS_MY_PUB='publish --dry-run' cargo my-pub":                       "cargo publish --dry-run",
		"cargo --config 'alias.x=\"publish\"' x":                                    "cargo publish",
		"cargo --config 'alias.x=[\"publish\", \"--no-verify\"]' x":                 "cargo publish --no-verify",
		"cargo --config=alias.x=publish x":                                          "cargo publish",
		"export CARGO_ALIAS_P=publish; cargo p":                                     "cargo publish",
		"CARGO_ALIAS_A=b CARGO_ALIAS_B=publish cargo a":                             "cargo publish",
		"git -c alias.x=push x":                                                     "git push",
		"git -c alias.x=push -c alias.y=x y":                                        "git push",
		"git -c ALIAS.X=push x":                                                     "git push",
		"git -c alias.x='push --force' x origin":                                    "git push --force origin",
		"git -C repo -c alias.x=push --no-pager x":                                  "git push",
		"V=push git --config-env=alias.x=V x":                                       "git push",
		"V=push; git --config-env alias.x=V x":                                      "git push",
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0=push git x": "git push",
		"GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=alias.a GIT_CONFIG_VALUE_0=b GIT_CONFIG_KEY_1=alias.b GIT_CONFIG_VALUE_1=push git a": "git push",
		"export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0=push; git x":                                       "git push",
		"GIT_CONFIG_PARAMETERS=\"'alias.x'='push'\" git x":                                                                        "git push",
		"GIT_CONFIG_PARAMETERS=\"'alias.x=push'\" git x":                                                                          "git push",
		"export GIT_CONFIG_PARAMETERS=\"'alias.x'='!git push'\"; git x":                                                           "git push",
		"git -c alias.x='!sh -c \"git push\"' x origin":                                                                           "git push",
		"git config alias.x push; git x":                                                                                          "git push",
		"git config --local alias.x push && git x":                                                                                "git push",
		"git config set --global alias.x 'push --force'; git x":                                                                   "git push --force",
		"git config --file c alias.x push; GIT_CONFIG_GLOBAL=c git x":                                                             "git push",
		"printf '[alias]\\n\\tx = push\\n' > c; GIT_CONFIG_GLOBAL=./c git x":                                                      "git push",
		"printf '[alias]\\n\\tx = push\\n' > c; git -c include.path=$PWD/c x":                                                     "git push",
		"printf '[include]\\npath = d\\n' > c; printf '[alias]\\nx = push\\n' > d; GIT_CONFIG_GLOBAL=c git x":                     "git push",
		"printf '[alias]\\n x = \"push\" # a comment\\n' > .git/config; git x":                                                    "git push",
		"mkdir -p .cargo; printf '[alias]\\np = \"publish\"\\n' > .cargo/config.toml; cargo p":                                    "cargo publish",
		"printf '[alias]\\np = [\"publish\", \"--no-verify\"]\\n' > .cargo/config.toml; cargo p":                                  "cargo publish --no-verify",
		"cp /usr/bin/git ./g; ./g push":                                                                                           "/usr/bin/git push",
		"ln -s /usr/bin/git g && ./g push":                                                                                        "/usr/bin/git push",
	})
	for _, line := range []string{
		"git --config-env=alias.x=V x",
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0=\"$V\" git x",
		"GIT_CONFIG_COUNT=\"$N\" git x",
		"GIT_CONFIG_PARAMETERS=\"$P\" git x",
		"git -c \"alias.x=$V\" x",
		"CARGO_ALIAS_X=\"$V\" cargo x",
		"ln -s \"$(command -v git)\" g; ./g push",
		"cp \"$(which git)\" ./g && ./g push",
		"curl -s https://example.com/c > c; GIT_CONFIG_GLOBAL=c git x",
		"git config alias.x \"$V\"; git x",
		"git config \"alias.$N\" push; git x",
		"curl -s https://example.com/c > .cargo/config.toml; cargo p",
	} {
		if _, unseeable := commands(line); !unseeable {
			t.Errorf("%q: no unseeable finding", line)
		}
	}
}

func TestOtherNamesLeaveOrdinaryCommandsAlone(t *testing.T) {
	ordinary(t, []string{
		"git -C repo status", "git --no-pager log", "git -c color.ui=never diff", "git -c user.name=x commit -m y",
		"cargo +nightly build", "cargo +stable test", "rustup run nightly cargo build", "git-lfs pull", "cargo --locked build",
		"CARGO_ALIAS_B=build cargo b", "git -c alias.st=status st", "rustup update", "rustup show",
		"ln -s ../lib lib", "cp \"$src\" ./dest", "git -c user.name=\"$NAME\" commit -m x",
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=cat git log",
		"git config user.name x && git commit -m y", "git config --get alias.x push; git x", "git config --global alias.co checkout; git co main",
		"find . -name '*.pyc' | parallel rm", "cat urls | parallel -j 4 curl -sO", "parallel -j 4 curl -sO {} :::: links.txt",
		"cat big.txt | parallel --pipe wc -l", "sudo -i", "su - jenkins -s /bin/bash", "faketime yesterday bash", "bwrap --ro-bind / / /bin/bash",
	})
	// An alias a cargo command cannot shadow runs the command.
	if found, _ := commands("CARGO_ALIAS_BUILD=publish cargo build"); slices.ContainsFunc(found, denied) {
		t.Errorf("cargo build with an alias named build: found %q; cargo ignores an alias shadowing its own command", found)
	}
}

// env -S splits its string as GNU env does.
func TestSplitString(t *testing.T) {
	for in, want := range map[string][]string{
		"git push":               {"git", "push"},
		"  git\tpush  ":          {"git", "push"},
		"'git push' x":           {"git push", "x"},
		`"a\"b" c`:               {`a"b`, "c"},
		`a\_b`:                   {"a", "b"},
		`"a\_b"`:                 {"a b"},
		"a #b c":                 {"a"},
		"a#b":                    {"a#b"},
		`a\cb c`:                 {"a"},
		"''":                     {""},
		`perl -w -T`:             {"perl", "-w", "-T"},
		`A=1 B='x y' git push`:   {"A=1", "B=x y", "git", "push"},
		`-i PATH=/bin sh -c 'x'`: {"-i", "PATH=/bin", "sh", "-c", "x"},
	} {
		if got, ok := splitString(in); !ok || !slices.Equal(got, want) {
			t.Errorf("splitString(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := splitString("git ${SUB}"); ok {
		t.Error("splitString of ${SUB}: known; env reads it from the environment")
	}
}

func TestParseGitConfig(t *testing.T) {
	text := "# top\n[alias]\n\tx = push\n\ty = \"log --oneline\" ; comment\n[Include]\n\tpath = other\n[includeIf \"gitdir:~/w/\"]\n\tpath = w\n[core]\n\tbare\n[alias.old]\nz = a\\tb\n"
	want := []configEntry{
		{"alias.x", value{text: "push", known: true}},
		{"alias.y", value{text: "log --oneline", known: true}},
		{"include.path", value{text: "other", known: true}},
		{"includeif.gitdir:~/w/.path", value{text: "w", known: true}},
		{"core.bare", value{text: "true", known: true}},
		{"alias.old.z", value{text: "a\tb", known: true}},
	}
	if got := parseGitConfig(text); !slices.Equal(got, want) {
		t.Errorf("parseGitConfig:\n got %+v\nwant %+v", got, want)
	}
}
