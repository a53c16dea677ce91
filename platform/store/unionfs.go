package store

import (
	"bytes"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"
)

// unionFS is several migration directories seen as one flat directory of
// .sql files, so that goose reads the platform's steps and every
// product's as one history. A version number used by two files, or a file
// name used twice with different contents, is refused: two steps claiming
// one version would make the history depend on which source was read
// first. The same file (name and bytes) from two sources is one step: a
// package's migrations (the approvals') may be carried both by the
// framework's list and by a product whose own code reads those tables.
type unionFS struct {
	files map[string]fs.FS // file name → the source that holds it
	names []string         // sorted
}

func newUnionFS(sources []fs.FS) (*unionFS, error) {
	u := &unionFS{files: map[string]fs.FS{}}
	versions := map[int64]string{}
	for _, src := range sources {
		if src == nil {
			continue
		}
		entries, err := fs.ReadDir(src, ".")
		if err != nil {
			return nil, fmt.Errorf("store: migrations: %w", err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".sql") {
				continue
			}
			num, _, ok := strings.Cut(name, "_")
			v, err := strconv.ParseInt(num, 10, 64)
			if !ok || err != nil {
				return nil, fmt.Errorf("store: migration %s: the name must start with its version number and _", name)
			}
			if prev, dup := u.files[name]; dup {
				same, err := sameFile(prev, src, name)
				if err != nil {
					return nil, err
				}
				if !same {
					return nil, fmt.Errorf("store: migration %s appears twice, with different contents", name)
				}
				continue
			}
			if prev, dup := versions[v]; dup {
				return nil, fmt.Errorf("store: migrations %s and %s share version %d", prev, name, v)
			}
			versions[v] = name
			u.files[name] = src
			u.names = append(u.names, name)
		}
	}
	slices.Sort(u.names)
	return u, nil
}

// sameFile reports whether two sources hold the same bytes under name.
func sameFile(a, b fs.FS, name string) (bool, error) {
	x, err := fs.ReadFile(a, name)
	if err != nil {
		return false, fmt.Errorf("store: migration %s: %w", name, err)
	}
	y, err := fs.ReadFile(b, name)
	if err != nil {
		return false, fmt.Errorf("store: migration %s: %w", name, err)
	}
	return bytes.Equal(x, y), nil
}

// Open implements fs.FS: "." is the flat directory, a name its file.
func (u *unionFS) Open(name string) (fs.File, error) {
	if name == "." {
		return &unionDir{u: u}, nil
	}
	src, ok := u.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return src.Open(name)
}

// ReadDir implements fs.ReadDirFS, which fs.Glob and goose use.
func (u *unionFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, 0, len(u.names))
	for _, n := range u.names {
		info, err := fs.Stat(u.files[n], n)
		if err != nil {
			return nil, err
		}
		out = append(out, fs.FileInfoToDirEntry(info))
	}
	return out, nil
}

// unionDir is the root directory of a unionFS.
type unionDir struct {
	u    *unionFS
	read bool
}

func (d *unionDir) Stat() (fs.FileInfo, error) { return dirInfo{}, nil }
func (d *unionDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: fs.ErrInvalid}
}
func (d *unionDir) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *unionDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.read {
		return nil, nil
	}
	d.read = true
	return d.u.ReadDir(".")
}

type dirInfo struct{}

func (dirInfo) Name() string       { return "." }
func (dirInfo) Size() int64        { return 0 }
func (dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (dirInfo) ModTime() time.Time { return time.Time{} }
func (dirInfo) IsDir() bool        { return true }
func (dirInfo) Sys() any           { return nil }

// Union is several migration directories seen as one, for a package whose
// Migrations carry another package's steps besides its own (Kadu's tables
// and the approvals its code reads): a file both hold is one step when
// their bytes agree (see unionFS). It panics when they clash — two files
// of one version, or one name with two contents — since the files are
// embedded, that is a mistake of the program.
func Union(sources ...fs.FS) fs.FS {
	u, err := newUnionFS(sources)
	if err != nil {
		panic(err.Error())
	}
	return u
}
