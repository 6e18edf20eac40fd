//go:build unix

package editors_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The Neovim plugin installed the ways docs/editors.md gives (issue 27,
// point 6), each then used with no setup{}: Neovim 0.11+'s
// vim.lsp.enable('codewhale_ls') alone must find lsp/codewhale_ls.lua on
// 'runtimepath', attach codewhale-ls to a broken permissions.toml and
// show its diagnostic. In real Neovim 0.12 (the sid root), by
// testdata/nvim/install.lua.

// installSeen is what install.lua saw.
type installSeen struct {
	Command     int  // exists(':Codewhale'): 2 for a user command
	Setup       bool // setup{} ran (its autocommands exist)
	Version     string
	LSPFiles    []string `json:"lsp_files"`
	Help        []string
	Clients     []struct{ Name, Root string }
	Diagnostics []struct {
		Code, Source string
		Lnum         int
	}
}

// runInstall runs install.lua as the user's init.lua with CWLS_CASE=kind;
// the Codewhale home's permissions.toml is broken (newNvimWorld).
func (w *nvimWorld) runInstall(t *testing.T, kind string, extraEnv []string) installSeen {
	t.Helper()
	var res installSeen
	w.runArgs(t, []string{"--headless", "-u", w.guest(filepath.Join(w.dir, "scripts", "install.lua"))}, "install.lua", kind, extraEnv, &res)
	return res
}

// check judges what install.lua saw; the plugin's lsp/codewhale_ls.lua
// must be the one under pluginDir (as the editor sees it), and setup{}
// must have run only where the install's spec asks for it.
func (res installSeen) check(t *testing.T, w *nvimWorld, pluginDir string, setup bool) {
	t.Helper()
	if res.Setup != setup {
		t.Errorf("setup{} ran: %v, want %v", res.Setup, setup)
	}
	if res.Command != 2 {
		t.Errorf(":Codewhale does not exist (exists() = %d): plugin/codewhale.lua was not loaded", res.Command)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+`).MatchString(res.Version) {
		t.Errorf("require('codewhale').version: %q", res.Version)
	}
	if len(res.LSPFiles) != 1 || !strings.HasPrefix(res.LSPFiles[0], pluginDir+"/") {
		t.Errorf("lsp/codewhale_ls.lua on 'runtimepath': %q, want one, under %s", res.LSPFiles, pluginDir)
	}
	if len(res.Help) != 1 {
		t.Errorf("doc/codewhale.txt on 'runtimepath': %q, want one", res.Help)
	}
	// The home's workspace is the home itself: it is in no git repository.
	home := w.guest(filepath.Join(w.dir, "home", ".codewhale"))
	if len(res.Clients) != 1 || res.Clients[0].Name != "codewhale_ls" || res.Clients[0].Root != home {
		t.Errorf("clients attached to permissions.toml: %+v, want codewhale_ls for %s", res.Clients, home)
	}
	found := false
	for _, d := range res.Diagnostics {
		found = found || (d.Code == "CW208" && d.Lnum == 2 && d.Source == "codewhale")
	}
	if !found {
		t.Errorf("no CW208 on line 2 of the broken permissions.toml: %+v", res.Diagnostics)
	}
}

func TestNeovimInstall(t *testing.T) {
	nv := sidNeovim(t)
	t.Run("on the runtimepath", func(t *testing.T) {
		w := newNvimWorld(t, nv)
		w.runInstall(t, "plain", nil).check(t, w, w.guest(filepath.Join(w.dir, "plugin")), false)
	})
	t.Run("the rock, as rocks.nvim installs it", func(t *testing.T) {
		luarocks := requireTool(t, "luarocks", ".ci/setup-nvim.sh (apt-get install luarocks)")
		w := newNvimWorld(t, nv)
		// rocks.nvim's tree: stdpath('data')/rocks, built for Lua 5.1.
		rocks := filepath.Join(w.dir, "data", "nvim", "rocks")
		specs, err := filepath.Glob(filepath.Join("nvim", "*.rockspec"))
		if err != nil || len(specs) != 1 {
			t.Fatalf("editors/nvim holds rockspecs %q, want one", specs)
		}
		cmd := exec.Command(luarocks, "--lua-version=5.1", "make", "--tree", rocks, filepath.Base(specs[0]))
		cmd.Dir = "nvim"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("luarocks make: %v\n%s", err, out)
		}
		// The builtin build found every module of lua/.
		modules, err := filepath.Glob(filepath.Join("nvim", "lua", "codewhale", "*.lua"))
		if err != nil || len(modules) == 0 {
			t.Fatalf("the plugin's modules: %q, %v", modules, err)
		}
		for _, m := range modules {
			if _, err := os.Stat(filepath.Join(rocks, "share", "lua", "5.1", "codewhale", filepath.Base(m))); err != nil {
				t.Errorf("the rock lacks the module %s: %v", m, err)
			}
		}
		// What luarocks.org serves: the src.rock `luarocks upload` packs
		// from the tag the script pushed (here, of a local mirror),
		// installed as `luarocks install` does. It must install the same
		// files as `luarocks make` from editors/nvim.
		git := requireTool(t, "git", "apt-get install git")
		mirror := mirrorPlugin(t, w, git)
		packDir := t.TempDir()
		spec, err := os.ReadFile(specs[0])
		if err != nil {
			t.Fatal(err)
		}
		const upstream = "url = 'git+https://github.com/codewhale-ls/codewhale-ls.git',"
		if !strings.Contains(string(spec), upstream) {
			t.Fatalf("the rockspec's source is not %s", upstream)
		}
		spec = []byte(strings.Replace(string(spec), upstream, "url = 'git+file://"+mirror+"',", 1))
		if err := os.WriteFile(filepath.Join(packDir, filepath.Base(specs[0])), spec, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(luarocks, "--lua-version=5.1", "pack", filepath.Base(specs[0]))
		cmd.Dir = packDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("luarocks pack: %v\n%s", err, out)
		}
		srcRock := strings.TrimSuffix(filepath.Base(specs[0]), ".rockspec") + ".src.rock"
		installed := filepath.Join(packDir, "tree")
		cmd = exec.Command(luarocks, "--lua-version=5.1", "install", "--tree", installed, srcRock)
		cmd.Dir = packDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("luarocks install %s: %v\n%s", srcRock, err, out)
		}
		if made, fromTag := treeFiles(t, rocks), treeFiles(t, installed); !slices.Equal(made, fromTag) {
			t.Errorf("the rock from the tag installs %q, luarocks make %q", fromTag, made)
		}
		res := w.runInstall(t, "rock", []string{"CWLS_ROCKS=" + w.guest(rocks)})
		res.check(t, w, w.guest(filepath.Join(rocks, "lib", "luarocks", "rocks-5.1", "codewhale.nvim")), false)
	})
	t.Run("lazy.nvim, the branch nvim", func(t *testing.T) {
		lazy := os.Getenv("CODEWHALE_LAZY_NVIM")
		if lazy == "" {
			// Not a failure under CODEWHALE_E2E=1: CI cannot fetch
			// lazy.nvim (no GitHub there), and it is not vendored.
			t.Skip("CODEWHALE_LAZY_NVIM names no lazy.nvim (a checkout's tree, with lua/lazy/init.lua)")
		}
		if _, err := os.Stat(filepath.Join(lazy, "lua", "lazy", "init.lua")); err != nil {
			t.Fatalf("CODEWHALE_LAZY_NVIM: %v", err)
		}
		git := requireTool(t, "git", "apt-get install git")
		if _, err := os.Stat(filepath.Join(nv.chroot, "usr", "bin", "git")); err != nil {
			skipOrFail(t, "lazy.nvim clones with git, which the Neovim's root lacks (%v)", err)
		}
		w := newNvimWorld(t, nv)
		mirror := mirrorPlugin(t, w, git)
		copyTree(t, lazy, filepath.Join(w.dir, "lazy.nvim"))
		res := w.runInstall(t, "lazy", []string{"CWLS_LAZY=" + w.guest(filepath.Join(w.dir, "lazy.nvim")), "CWLS_MIRROR=" + w.guest(mirror)})
		// The spec of the docs: its opts run setup{}.
		res.check(t, w, w.guest(filepath.Join(w.dir, "data", "nvim", "lazy", "codewhale-ls")), true)
	})
}

// runGit runs git in dir and returns its output, trimmed.
func runGit(t *testing.T, git, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(git, append([]string{"-c", "user.name=codewhale test", "-c", "user.email=test@codewhale.invalid", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %q: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// mirrorPlugin publishes this tree's plugin as a release does: a
// repository of editors/nvim and tools/nvim-mirror.sh, whose script
// pushes the branch nvim and the tag nvim-vVERSION to a bare repository
// (the returned mirror), checked here.
func mirrorPlugin(t *testing.T, w *nvimWorld, git string) string {
	t.Helper()
	src := filepath.Join(w.dir, "src")
	copyTree(t, "nvim", filepath.Join(src, "editors", "nvim"))
	copyFile(t, filepath.Join("..", "tools", "nvim-mirror.sh"), filepath.Join(src, "tools", "nvim-mirror.sh"), 0o755)
	mirror := filepath.Join(w.dir, "mirror.git")
	runGit(t, git, w.dir, "init", "--quiet", src)
	runGit(t, git, src, "add", ".")
	runGit(t, git, src, "commit", "--quiet", "-m", "the plugin")
	runGit(t, git, w.dir, "init", "--quiet", "--bare", mirror)
	cmd := exec.Command(filepath.Join(src, "tools", "nvim-mirror.sh"), "--push", mirror)
	cmd.Dir = src
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tools/nvim-mirror.sh --push: %v\n%s", err, out)
	}
	split := strings.TrimSpace(string(out))
	if branch := runGit(t, git, mirror, "rev-parse", "refs/heads/nvim"); branch != split {
		t.Errorf("the branch nvim is %s, the split %s", branch, split)
	}
	tags := runGit(t, git, mirror, "tag", "--points-at", split)
	if !regexp.MustCompile(`^nvim-v\d+\.\d+\.\d+$`).MatchString(tags) {
		t.Errorf("tags of the split: %q, want nvim-vVERSION", tags)
	}
	if tree := strings.Split(runGit(t, git, mirror, "ls-tree", "--name-only", split), "\n"); !slices.Contains(tree, "lsp") || !slices.Contains(tree, "plugin") || !slices.Contains(tree, "lua") {
		t.Errorf("the branch nvim's root: %q, want the plugin's tree", tree)
	}
	return mirror
}

// treeFiles lists the files under dir, relative, but the ones luarocks
// writes of its own (manifests, the rockspec copy).
func treeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if name := d.Name(); name == "manifest" || name == "rock_manifest" || strings.HasSuffix(name, ".rockspec") {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		files = append(files, rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}
