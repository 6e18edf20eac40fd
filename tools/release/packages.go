package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm" // registers the rpm packager
)

// What the packages say about themselves (conventions27.md).
const (
	packageName        = "codewhale-ls"
	packageMaintainer  = "codewhale-ls contributors <https://github.com/codewhale-ls/codewhale-ls/issues>"
	packageHomepage    = "https://github.com/codewhale-ls/codewhale-ls"
	packageLicense     = "MIT"
	packageDescription = `Policy sidecar for the Codewhale coding agent
codewhale-ls decides tool calls exactly as Codewhale does and explains
every decision; it lints Codewhale's policy files as a language server in
any editor and asks a person for approvals. The package installs the
binary, its shell completions and its man page.`
)

// linuxPackage is one .deb or .rpm of a release.
type linuxPackage struct {
	format string // deb or rpm
	target target
}

// fileName is the package's asset name (conventions27.md).
func (p linuxPackage) fileName(version string) string {
	if p.format == "deb" {
		return fmt.Sprintf("%s_%s_%s.deb", packageName, version, p.target.goarch)
	}
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[p.target.goarch]
	return fmt.Sprintf("%s-%s.%s.rpm", packageName, version, arch)
}

// writePackage builds p with nfpm from binary and the docs, staging the
// files it installs in stage. Every file's time is mtime, every owner
// root, every mode 0755 or 0644.
func writePackage(p linuxPackage, version, binary, readme, license string, d docs, stage string, mtime time.Time) ([]byte, error) {
	manGz, err := gzipBytes(d.man)
	if err != nil {
		return nil, err
	}
	staged := map[string][]byte{
		"codewhale-ls.bash": d.bash,
		"_codewhale-ls":     d.zsh,
		"codewhale-ls.fish": d.fish,
		"codewhale-ls.1.gz": manGz,
	}
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return nil, err
	}
	for name, data := range staged {
		if err := os.WriteFile(filepath.Join(stage, name), data, 0o644); err != nil {
			return nil, err
		}
	}
	// Debian's policy names the licence file copyright; rpm marks it as
	// the licence (the deb packager ignores rpm's types).
	licenseAt, licenseType := "/usr/share/doc/codewhale-ls/LICENSE", files.TypeRPMLicense
	if p.format == "deb" {
		licenseAt, licenseType = "/usr/share/doc/codewhale-ls/copyright", ""
	}
	file := func(src, dst string, mode os.FileMode, kind string) *files.Content {
		return &files.Content{Source: src, Destination: dst, Type: kind,
			FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root", Mode: mode, MTime: mtime}}
	}
	info := &nfpm.Info{
		Name:        packageName,
		Arch:        p.target.goarch,
		Platform:    "linux",
		Version:     version,
		Section:     "devel",
		Priority:    "optional",
		Maintainer:  packageMaintainer,
		Description: packageDescription,
		Vendor:      "codewhale-ls",
		Homepage:    packageHomepage,
		License:     packageLicense,
		MTime:       mtime,
		Overridables: nfpm.Overridables{
			Umask: 0o022,
			Contents: files.Contents{
				file(binary, "/usr/bin/codewhale-ls", 0o755, ""),
				file(filepath.Join(stage, "codewhale-ls.bash"), "/usr/share/bash-completion/completions/codewhale-ls", 0o644, ""),
				file(filepath.Join(stage, "_codewhale-ls"), "/usr/share/zsh/vendor-completions/_codewhale-ls", 0o644, ""),
				file(filepath.Join(stage, "codewhale-ls.fish"), "/usr/share/fish/vendor_completions.d/codewhale-ls.fish", 0o644, ""),
				file(filepath.Join(stage, "codewhale-ls.1.gz"), "/usr/share/man/man1/codewhale-ls.1.gz", 0o644, ""),
				file(readme, "/usr/share/doc/codewhale-ls/README.md", 0o644, ""),
				file(license, licenseAt, 0o644, licenseType),
			},
			RPM: nfpm.RPM{Group: "Development/Tools", Summary: "Policy sidecar for the Codewhale coding agent"},
		},
	}
	info = nfpm.WithDefaults(info)
	packager, err := nfpm.Get(p.format)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := packager.Package(info, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", p.fileName(version), err)
	}
	return out.Bytes(), nil
}

// gzipBytes is data gzipped as the archives are: the best compression,
// a header without a name or a time.
func gzipBytes(data []byte) ([]byte, error) {
	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
