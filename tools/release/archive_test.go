package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
	"time"
)

var testEntries = []entry{
	{name: "pkg/tool", data: []byte("\x7fELF binary"), executable: true},
	{name: "pkg/man/tool.1", data: []byte(".TH TOOL 1\n")},
	{name: "pkg/README.md", data: []byte("# tool\n")},
}

// reversed is entries in the opposite order, so a writer that kept the
// order given would write other bytes.
func reversed(entries []entry) []entry {
	out := make([]entry, len(entries))
	for i, e := range entries {
		out[len(entries)-1-i] = e
	}
	return out
}

func TestTarGzDependsOnlyOnEntriesAndTime(t *testing.T) {
	mtime := time.Unix(1700000000, 0)
	var first, second, later bytes.Buffer
	if err := writeTarGz(&first, testEntries, mtime); err != nil {
		t.Fatal(err)
	}
	// Another order and another time zone give the same bytes.
	if err := writeTarGz(&second, reversed(testEntries), mtime.In(time.FixedZone("X", 3600))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatal("two tar.gz of the same entries differ")
	}
	if err := writeTarGz(&later, testEntries, mtime.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(first.Bytes(), later.Bytes()) {
		t.Fatal("the time given does not reach the tar.gz")
	}

	zr, err := gzip.NewReader(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header has name %q and time %v; want neither", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "root" || h.Gname != "root" || !h.ModTime.Equal(mtime) {
			t.Errorf("%s: owner %d/%d %s/%s time %v; want root and %v", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime, mtime)
		}
		want := int64(0o644)
		if h.Name == "pkg/tool" || strings.HasSuffix(h.Name, "/") {
			want = 0o755
		}
		if h.Mode != want {
			t.Errorf("%s: mode %o, want %o", h.Name, h.Mode, want)
		}
	}
	wantNames := "pkg/ pkg/README.md pkg/man/ pkg/man/tool.1 pkg/tool"
	if got := strings.Join(names, " "); got != wantNames {
		t.Errorf("entries %q, want %q", got, wantNames)
	}
}

func TestZipDependsOnlyOnEntriesAndTime(t *testing.T) {
	mtime := time.Unix(1700000000, 0)
	var first, second bytes.Buffer
	if err := writeZip(&first, testEntries, mtime); err != nil {
		t.Fatal(err)
	}
	if err := writeZip(&second, reversed(testEntries), mtime.In(time.FixedZone("X", 3600))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatal("two zips of the same entries differ")
	}
	zr, err := zip.NewReader(bytes.NewReader(first.Bytes()), int64(first.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if !f.Modified.Equal(mtime) {
			t.Errorf("%s: time %v, want %v", f.Name, f.Modified, mtime)
		}
	}
	if tool := zr.File[len(zr.File)-1]; tool.Name != "pkg/tool" || tool.Mode().Perm() != 0o755 {
		t.Errorf("last entry %s mode %v, want pkg/tool 0755", tool.Name, tool.Mode())
	}

	// Zips another tool stamped with its clock, listing the same files
	// in two orders, become the same bytes, dated as given.
	stamped := func(names ...string) []byte {
		var out bytes.Buffer
		zw := zip.NewWriter(&out)
		for _, name := range names {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(name))
		}
		zw.Close()
		return out.Bytes()
	}
	normal, err := normalizeZip(stamped("extension/package.json", "extension/bin/tool"), mtime)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // another clock second for the second zip
	again, err := normalizeZip(stamped("extension/bin/tool", "extension/package.json"), mtime)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(normal, again) {
		t.Error("two zips of the same files in two orders differ once normalized")
	}
	nr, err := zip.NewReader(bytes.NewReader(normal), int64(len(normal)))
	if err != nil {
		t.Fatal(err)
	}
	if len(nr.File) != 2 || nr.File[0].Name != "extension/bin/tool" || !nr.File[0].Modified.Equal(mtime) {
		t.Errorf("normalized zip: %d files, first %s at %v; want extension/bin/tool at %v", len(nr.File), nr.File[0].Name, nr.File[0].Modified, mtime)
	}
}

func TestArchiveRefusesUncleanPaths(t *testing.T) {
	for _, name := range []string{"/abs", "a/../b", "dir/", "", "a//b"} {
		if err := writeTarGz(io.Discard, []entry{{name: name}}, time.Unix(0, 0)); err == nil {
			t.Errorf("entry %q was written", name)
		}
	}
	if err := writeZip(io.Discard, []entry{{name: "a"}, {name: "a"}}, time.Unix(0, 0)); err == nil {
		t.Error("an entry listed twice was written")
	}
}
