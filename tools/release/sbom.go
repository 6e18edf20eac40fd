package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/anchore/packageurl-go"
	"github.com/anchore/syft/syft"
	"github.com/anchore/syft/syft/cataloging"
	"github.com/anchore/syft/syft/format/common/spdxhelpers"
	"github.com/anchore/syft/syft/pkg"
	"github.com/anchore/syft/syft/sbom"
	"github.com/anchore/syft/syft/source"
	"github.com/anchore/syft/syft/source/directorysource"
	"github.com/spdx/tools-golang/convert"
	"github.com/spdx/tools-golang/spdx/v2/v2_3"
)

// namespaceBase is where the SBOMs' SPDX document namespaces live: a URI
// that names the document, never fetched (SPDX 2.3, 6.5).
const namespaceBase = "https://github.com/codewhale-ls/codewhale-ls/releases/spdx/"

// writeSBOM catalogs dir (an archive's folder, unpacked) with syft and
// returns its SPDX 2.3 JSON. Syft stamps the time it ran and a random
// namespace; both are replaced by what the archive is, so the same
// archive always gets the same SBOM: created is SOURCE_DATE_EPOCH, the
// namespace names the archive and its sha256.
func writeSBOM(ctx context.Context, dir, archiveName, archiveSHA256, version string, created time.Time) ([]byte, error) {
	src, err := directorysource.New(directorysource.Config{
		Path: dir,
		// Paths in the SBOM are the archive folder's, not this machine's.
		Base:  dir,
		Alias: source.Alias{Name: archiveName, Version: version},
	})
	if err != nil {
		return nil, fmt.Errorf("sbom of %s: %w", archiveName, err)
	}
	defer src.Close()
	// Only Go's catalogers: the folder's one package is the Go binary
	// (its module and the modules built into it); the others look for
	// what an archive never holds (and the RPM database one needs a
	// SQLite driver).
	cfg := syft.DefaultCreateSBOMConfig().WithCatalogerSelection(
		cataloging.NewSelectionRequest().WithDefaults("directory").WithSubSelections("go").WithAdditions("go-module-binary-cataloger"))
	s, err := syft.CreateSBOM(ctx, src, cfg)
	if err != nil {
		return nil, fmt.Errorf("sbom of %s: %w", archiveName, err)
	}
	stampMainModule(s, version)
	latest := spdxhelpers.ToFormatModel(*s)
	if latest == nil {
		return nil, fmt.Errorf("sbom of %s: syft made no SPDX document", archiveName)
	}
	latest.DocumentNamespace = namespaceBase + archiveName + "-" + archiveSHA256
	latest.CreationInfo.Created = created.UTC().Format(time.RFC3339)
	var doc v2_3.Document
	if err := convert.Document(latest, &doc); err != nil {
		return nil, fmt.Errorf("sbom of %s: %w", archiveName, err)
	}
	// Encoded as syft's own spdx-json encoder does.
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("sbom of %s: %w", archiveName, err)
	}
	return out.Bytes(), nil
}

// mainModule is the module the binary is built from.
const mainModule = "github.com/codewhale-ls/codewhale-ls"

// stampMainModule gives the binary's own module its version, where syft
// says UNKNOWN: a -trimpath build records no -ldflags (where the version
// is stamped) and a -buildvcs=false one no commit. The package keeps the
// ID syft gave it, which its relationships name.
func stampMainModule(s *sbom.SBOM, version string) {
	for _, p := range s.Artifacts.Packages.PackagesByName(mainModule) {
		if p.Type != pkg.GoModulePkg {
			continue
		}
		s.Artifacts.Packages.Delete(p.ID())
		p.Version = "v" + version
		namespace, name := path.Split(mainModule)
		for i := range p.CPEs {
			p.CPEs[i].Attributes.Version = p.Version
		}
		p.PURL = packageurl.NewPackageURL(packageurl.TypeGolang, strings.TrimSuffix(namespace, "/"), name, p.Version, nil, "").ToString()
		s.Artifacts.Packages.Add(p)
	}
}
