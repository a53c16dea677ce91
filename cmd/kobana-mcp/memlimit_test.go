package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"2GiB": 2 << 30, "512MiB": 512 << 20, "1.5GiB": 3 << 29, "2gb": 2e9, "300M": 300e6,
		"1073741824": 1 << 30, " 4 GiB ": 4 << 30, "1048576B": 1 << 20,
	} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1GiB", "0", "2XB", "100KiB", "1e30GiB"} {
		if n, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, n)
		}
	}
}

// cgroupDir writes cgroup files (path relative to the root: content) in
// a temporary directory, as the kernel mounts them.
func cgroupDir(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestChooseMemoryLimit(t *testing.T) {
	t.Parallel()
	noEnv := func(string) string { return "" }
	v2 := map[string]string{"memory.max": "2147483648\n"}
	for _, tc := range []struct {
		name   string
		flag   string
		env    map[string]string
		files  map[string]string
		bytes  int64
		source string
	}{
		{name: "cgroup v2: 90% of its limit", files: v2, bytes: 1932735283, source: "cgroup v2"},
		{name: "cgroup v2 unlimited", files: map[string]string{"memory.max": "max\n"}, source: "none"},
		{name: "cgroup v1", files: map[string]string{"memory/memory.limit_in_bytes": "1073741824\n"}, bytes: 966367641, source: "cgroup v1"},
		{name: "cgroup v1 unlimited", files: map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n"}, source: "none"},
		{name: "v2 before v1", files: map[string]string{"memory.max": "2147483648", "memory/memory.limit_in_bytes": "1073741824"}, bytes: 1932735283, source: "cgroup v2"},
		{name: "no container", source: "none"},
		{name: "explicit flag wins over the cgroup", flag: "512MiB", files: v2, bytes: 512 << 20, source: "--memory-limit"},
		{name: "off", flag: "off", files: v2, source: "none"},
		{name: "GOMEMLIMIT wins", flag: "512MiB", env: map[string]string{"GOMEMLIMIT": "1GiB"}, files: v2, source: "GOMEMLIMIT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			getenv := noEnv
			if tc.env != nil {
				getenv = func(k string) string { return tc.env[k] }
			}
			c, err := chooseMemoryLimit(tc.flag, getenv, cgroupDir(t, tc.files))
			if err != nil {
				t.Fatal(err)
			}
			if c.bytes != tc.bytes || c.source != tc.source {
				t.Errorf("got %d bytes from %s, want %d from %s", c.bytes, c.source, tc.bytes, tc.source)
			}
		})
	}
}

func TestChooseMemoryLimitRefusesBadInput(t *testing.T) {
	t.Parallel()
	noEnv := func(string) string { return "" }
	if _, err := chooseMemoryLimit("two gigs", noEnv, t.TempDir()); err == nil || !strings.Contains(err.Error(), "--memory-limit") {
		t.Errorf("a bad flag: %v, want an error naming --memory-limit", err)
	}
	if _, err := chooseMemoryLimit("", noEnv, cgroupDir(t, map[string]string{"memory.max": "lots"})); err == nil {
		t.Error("an unreadable memory.max gave no error")
	}
}
