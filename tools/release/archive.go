package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// entry is one file of an archive or package: its path inside (slashes,
// no leading slash), its bytes and whether it is executable. Archives
// hold nothing else, so that nothing of the machine that built them (an
// owner, a umask, a clock) can reach their bytes.
type entry struct {
	name       string
	data       []byte
	executable bool
}

// Modes of every file and folder in an archive (conventions27.md).
const (
	modeExecutable = 0o755
	modeRegular    = 0o644
	modeDirectory  = 0o755
)

func (e entry) mode() fs.FileMode {
	if e.executable {
		return modeExecutable
	}
	return modeRegular
}

// withDirectories is entries and the folders they are in, sorted by path,
// so an archive lists every folder before what it holds, always in the
// same order.
func withDirectories(entries []entry) ([]entry, error) {
	seen := map[string]bool{}
	var all []entry
	for _, e := range entries {
		if e.name == "" || strings.HasPrefix(e.name, "/") || strings.HasSuffix(e.name, "/") || path.Clean(e.name) != e.name {
			return nil, fmt.Errorf("archive entry %q is not a clean relative file path", e.name)
		}
		if seen[e.name] {
			return nil, fmt.Errorf("archive entry %q is listed twice", e.name)
		}
		seen[e.name] = true
		all = append(all, e)
		for dir := path.Dir(e.name); dir != "."; dir = path.Dir(dir) {
			if !seen[dir+"/"] {
				seen[dir+"/"] = true
				all = append(all, entry{name: dir + "/"})
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	return all, nil
}

// writeTarGz writes entries as a gzipped tar whose bytes depend only on
// the entries and mtime: sorted, owned by root (uid/gid 0), modes 0755 or
// 0644, every time mtime, and a gzip header without a name or a time.
func writeTarGz(w io.Writer, entries []entry, mtime time.Time) error {
	all, err := withDirectories(entries)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	for _, e := range all {
		h := &tar.Header{
			Name:    e.name,
			ModTime: mtime,
			Uname:   "root",
			Gname:   "root",
			Format:  tar.FormatUSTAR,
		}
		if strings.HasSuffix(e.name, "/") {
			h.Typeflag = tar.TypeDir
			h.Mode = modeDirectory
		} else {
			h.Typeflag = tar.TypeReg
			h.Mode = int64(e.mode())
			h.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("tar %s: %w", e.name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return fmt.Errorf("tar %s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// writeZip writes entries as a zip whose bytes depend only on the entries
// and mtime: sorted, every time mtime (UTC), Unix modes 0755 or 0644.
func writeZip(w io.Writer, entries []entry, mtime time.Time) error {
	all, err := withDirectories(entries)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, e := range all {
		h := &zip.FileHeader{Name: e.name, Modified: mtime.UTC()}
		if strings.HasSuffix(e.name, "/") {
			h.SetMode(fs.ModeDir | modeDirectory)
			h.Method = zip.Store
		} else {
			h.SetMode(e.mode())
			h.Method = zip.Deflate
		}
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return fmt.Errorf("zip %s: %w", e.name, err)
		}
		if _, err := fw.Write(e.data); err != nil {
			return fmt.Errorf("zip %s: %w", e.name, err)
		}
	}
	return zw.Close()
}

// normalizeZip rewrites a zip written by another tool (vsce's .vsix,
// which stamps the time it ran and lists the files in the order its
// file search found them, which varies) with every entry's time set to
// mtime and the entries sorted by name. A .vsix's readers look entries up
// by name, in any order.
func normalizeZip(data []byte, mtime time.Time) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	files := append([]*zip.File(nil), zr.File...)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	for _, f := range files {
		h := &zip.FileHeader{Name: f.Name, Method: f.Method, Modified: mtime.UTC()}
		if f.Method != zip.Store {
			h.Method = zip.Deflate
		}
		h.SetMode(f.Mode())
		r, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		fw, err := zw.CreateHeader(h)
		if err == nil {
			_, err = io.Copy(fw, io.LimitReader(r, maxZipEntry))
		}
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// maxZipEntry bounds what one entry of a .vsix may unpack to: the
// binary, the largest, is tens of megabytes.
const maxZipEntry = 512 << 20
