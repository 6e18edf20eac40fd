// Command release builds codewhale-ls's release assets, reproducibly: two
// runs at one commit write byte-identical files (docs/release.md). Run it
// from the repository's root:
//
//	go -C tools/release run . --repo ../.. [--snapshot] [--out DIR] [--targets all|os/arch,...] [--no-vsix]
//
// It is a Go module of its own, so nfpm and syft, which it uses as
// libraries, stay out of the main module's build; it builds the main
// module with the go command. The asset names and layout are fixed in
// docs/release.md.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// options are the command line's.
type options struct {
	repo     string
	out      string
	snapshot bool
	targets  []target
	vsix     bool
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	var targets string
	var noVSIX bool
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.repo, "repo", ".", "the repository's root (from tools/release: ../..)")
	fs.StringVar(&o.out, "out", "", "where the assets go; must be empty or absent (default: the repository's dist/)")
	fs.BoolVar(&o.snapshot, "snapshot", false, "build a snapshot (version X.Y.Z-snapshot.<commit>) instead of the tagged release; a dirty tree is allowed")
	fs.StringVar(&targets, "targets", "all", "platforms: all, or a comma-separated list of os/arch (linux/amd64,...)")
	fs.BoolVar(&noVSIX, "no-vsix", false, "skip the VS Code extensions (for a machine without Node)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q: every option is a flag (see -h)", fs.Args())
	}
	var err error
	if o.targets, err = parseTargets(targets); err != nil {
		return o, err
	}
	o.vsix = !noVSIX
	if o.repo, err = filepath.Abs(o.repo); err != nil {
		return o, err
	}
	if o.out == "" {
		o.out = filepath.Join(o.repo, "dist")
	}
	if o.out, err = filepath.Abs(o.out); err != nil {
		return o, err
	}
	return o, nil
}

// run builds every asset into the out folder; when it fails, the folder
// may hold some assets but never a SHA256SUMS, which is written last.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	started := time.Now()
	o, err := parseOptions(args, os.Stderr)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(o.repo, "cmd", "codewhale-ls")); err != nil {
		return fmt.Errorf("%s is not the codewhale-ls repository (no cmd/codewhale-ls): pass --repo", o.repo)
	}
	src, err := readSource(o.repo, o.snapshot, os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	if err := emptyDir(o.out); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "codewhale-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	fmt.Fprintf(stdout, "codewhale-ls %s from %s, files dated %s, into %s\n", src.version, src.commit, src.epoch.Format(time.RFC3339), o.out)

	r := &release{opts: o, src: src, work: work, stdout: stdout, sums: map[string]string{}}
	steps := []func(context.Context) error{r.buildBinaries, r.writeArchives, r.writePackages, r.writeVSIX, r.writeFormula, r.writeSums}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "done in %.1f s\n", time.Since(started).Seconds())
	return nil
}

// emptyDir makes dir if it is absent and fails when it holds anything:
// assets of another build beside this one's would be checksummed as
// this one's.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s is not empty: remove it (rm -r %s) or pass another --out", dir, dir)
	}
	return nil
}

// release is one run's state: the binaries built, the docs generated and
// the sha256 of each asset written.
type release struct {
	opts     options
	src      origin
	work     string
	stdout   io.Writer
	binaries map[target]string
	docs     docs
	archives map[target]string // target -> archive file name
	sums     map[string]string // asset file name -> sha256 hex
}

// binDir holds the binaries as package.mjs --binaries reads them:
// <goos>_<goarch>/codewhale-ls[.exe].
func (r *release) binDir() string { return filepath.Join(r.work, "bin") }

func (r *release) buildBinaries(context.Context) error {
	r.binaries = map[target]string{}
	for _, t := range r.opts.targets {
		started := time.Now()
		bin, err := goBuild(r.opts.repo, r.src, t, filepath.Join(r.binDir(), t.goos+"_"+t.goarch))
		if err != nil {
			return err
		}
		r.binaries[t] = bin
		fmt.Fprintf(r.stdout, "built %s: %s in %.1f s\n", t, size(bin), time.Since(started).Seconds())
	}
	host, ok := r.binaries[hostTarget()]
	if !ok {
		var err error
		if host, err = goBuild(r.opts.repo, r.src, hostTarget(), filepath.Join(r.work, "host")); err != nil {
			return err
		}
	}
	var err error
	r.docs, err = generateDocs(host)
	return err
}

// archiveBase is an archive's name without its extension, and the folder
// inside it.
func (r *release) archiveBase(t target) string {
	return fmt.Sprintf("codewhale-ls_%s_%s_%s", r.src.version, t.goos, t.goarch)
}

func (r *release) writeArchives(ctx context.Context) error {
	readme, err := os.ReadFile(filepath.Join(r.opts.repo, "README.md"))
	if err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(r.opts.repo, "LICENSE"))
	if err != nil {
		return fmt.Errorf("every archive carries the licence: %w", err)
	}
	r.archives = map[target]string{}
	for _, t := range r.opts.targets {
		started := time.Now()
		base := r.archiveBase(t)
		binary, err := os.ReadFile(r.binaries[t])
		if err != nil {
			return err
		}
		files := []entry{
			{name: t.binaryName(), data: binary, executable: true},
			{name: "LICENSE", data: license},
			{name: "README.md", data: readme},
			{name: "completions/codewhale-ls.bash", data: r.docs.bash},
			{name: "completions/_codewhale-ls", data: r.docs.zsh},
			{name: "completions/codewhale-ls.fish", data: r.docs.fish},
			{name: "man/codewhale-ls.1", data: r.docs.man},
		}
		inFolder := make([]entry, len(files))
		for i, f := range files {
			inFolder[i] = f
			inFolder[i].name = base + "/" + f.name
		}
		var name string
		var archive bytes.Buffer
		if t.goos == "windows" {
			name = base + ".zip"
			err = writeZip(&archive, inFolder, r.src.epoch)
		} else {
			name = base + ".tar.gz"
			err = writeTarGz(&archive, inFolder, r.src.epoch)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := r.writeAsset(name, archive.Bytes(), started); err != nil {
			return err
		}
		r.archives[t] = name

		// The SBOM catalogs the archive's folder as it unpacks.
		started = time.Now()
		unpacked := filepath.Join(r.work, "unpacked", base)
		for _, f := range files {
			if err := writeFile(filepath.Join(unpacked, filepath.FromSlash(f.name)), f.data, f.mode()); err != nil {
				return err
			}
		}
		sbom, err := writeSBOM(ctx, unpacked, name, r.sums[name], r.src.version, r.src.epoch)
		if err != nil {
			return err
		}
		if err := r.writeAsset(name+".spdx.json", sbom, started); err != nil {
			return err
		}
	}
	return nil
}

func (r *release) writePackages(context.Context) error {
	for _, t := range r.opts.targets {
		if t.goos != "linux" {
			continue
		}
		for _, format := range []string{"deb", "rpm"} {
			started := time.Now()
			p := linuxPackage{format: format, target: t}
			data, err := writePackage(p, r.src.version, r.binaries[t],
				filepath.Join(r.opts.repo, "README.md"), filepath.Join(r.opts.repo, "LICENSE"),
				r.docs, filepath.Join(r.work, "package", format+"_"+t.goarch), r.src.epoch)
			if err != nil {
				return err
			}
			if err := r.writeAsset(p.fileName(r.src.version), data, started); err != nil {
				return err
			}
		}
	}
	return nil
}

// vscodeTargets are the VS Code platforms with a .vsix of their own and
// the binary each carries (editors/vscode/scripts/package.mjs).
var vscodeTargets = []struct {
	name   string
	target target
}{
	{"linux-x64", target{"linux", "amd64"}}, {"linux-arm64", target{"linux", "arm64"}},
	{"darwin-x64", target{"darwin", "amd64"}}, {"darwin-arm64", target{"darwin", "arm64"}},
	{"win32-x64", target{"windows", "amd64"}},
}

// writeVSIX packs the VS Code extension for each platform whose binary
// was built, with that binary: package.mjs stages and packs them, and
// the times vsce stamps are then replaced with SOURCE_DATE_EPOCH.
func (r *release) writeVSIX(context.Context) error {
	if !r.opts.vsix {
		fmt.Fprintln(r.stdout, "VS Code extensions skipped (--no-vsix)")
		return nil
	}
	extension := filepath.Join(r.opts.repo, "editors", "vscode")
	if _, err := os.Stat(filepath.Join(extension, "node_modules", ".bin", "vsce")); err != nil {
		return fmt.Errorf("the VS Code extension's tools are not installed (%w): run `bash .ci/setup-vscode.sh` with Node 24 first on PATH, or pass --no-vsix", err)
	}
	var names []string
	for _, v := range vscodeTargets {
		if _, ok := r.binaries[v.target]; ok {
			names = append(names, v.name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	started := time.Now()
	packed := filepath.Join(r.work, "vsix")
	args := append([]string{filepath.Join(extension, "scripts", "package.mjs"),
		"--binaries", r.binDir(), "--version", r.src.version, "--out", packed}, names...)
	cmd := exec.Command("node", args...)
	cmd.Dir = extension
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("packing the VS Code extensions: %w\n%s", err, stderr.String())
	}
	fmt.Fprintf(r.stdout, "packed %d VS Code extensions in %.1f s\n", len(names), time.Since(started).Seconds())
	for _, name := range names {
		started := time.Now()
		file := fmt.Sprintf("codewhale-%s-%s.vsix", name, r.src.version)
		data, err := os.ReadFile(filepath.Join(packed, file))
		if err != nil {
			return err
		}
		if data, err = normalizeZip(data, r.src.epoch); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if err := r.writeAsset(file, data, started); err != nil {
			return err
		}
	}
	return nil
}

func (r *release) writeFormula(context.Context) error {
	for _, t := range formulaTargets {
		if _, ok := r.archives[t]; !ok {
			fmt.Fprintf(r.stdout, "Homebrew formula skipped: it needs the %s archive (--targets)\n", t)
			return nil
		}
	}
	started := time.Now()
	data, err := renderFormula(r.src.version, r.archives, r.sums)
	if err != nil {
		return err
	}
	return r.writeAsset("codewhale-ls.rb", data, started)
}

// writeSums writes SHA256SUMS, in sha256sum's format, over every asset,
// sorted by name.
func (r *release) writeSums(context.Context) error {
	names := make([]string, 0, len(r.sums))
	for name := range r.sums {
		names = append(names, name)
	}
	sort.Strings(names)
	var sums strings.Builder
	for _, name := range names {
		fmt.Fprintf(&sums, "%s  %s\n", r.sums[name], name)
	}
	if err := writeFile(filepath.Join(r.opts.out, "SHA256SUMS"), []byte(sums.String()), modeRegular); err != nil {
		return err
	}
	fmt.Fprintf(r.stdout, "SHA256SUMS: %d assets\n", len(names))
	return nil
}

// writeAsset writes one asset into the out folder and keeps its sha256.
func (r *release) writeAsset(name string, data []byte, started time.Time) error {
	if err := writeFile(filepath.Join(r.opts.out, name), data, modeRegular); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	r.sums[name] = hex.EncodeToString(sum[:])
	fmt.Fprintf(r.stdout, "wrote %s: %d bytes in %.1f s\n", name, len(data), time.Since(started).Seconds())
	return nil
}

func writeFile(name string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, mode)
}

func size(name string) string {
	fi, err := os.Stat(name)
	if err != nil {
		return "?"
	}
	return fmt.Sprintf("%d bytes", fi.Size())
}
