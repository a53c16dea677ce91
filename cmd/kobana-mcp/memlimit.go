package main

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// memoryLimitShare is the part of the container's memory limit the Go
// heap is held under (GOMEMLIMIT): the rest is the runtime's own, the
// stacks, cgo (SQLite) and the page cache the kernel charges to the
// container. Under it the collector works harder as the heap nears the
// limit instead of the kernel killing the process at it (issue 22: a
// Kadu expression exhausted a process's memory and the OOM killer took
// the whole service with it).
const memoryLimitShare = 0.9

// cgroupRoot is where the container's cgroup files are mounted.
const cgroupRoot = "/sys/fs/cgroup"

// memoryLimitHelp is the --memory-limit flag's help.
const memoryLimitHelp = "soft limit of the Go heap, like GOMEMLIMIT (2GiB, 512MiB, bytes; off: none); empty: 90% of the container's memory limit (cgroup), none outside a container; GOMEMLIMIT, when set, wins"

// memoryLimitChoice is what the process's memory limit is and why.
type memoryLimitChoice struct {
	bytes  int64  // 0: none set by us
	source string // GOMEMLIMIT, --memory-limit, cgroup v2, cgroup v1, none
	cgroup int64  // the container's limit read, when source is a cgroup
}

// chooseMemoryLimit decides the heap's soft limit: GOMEMLIMIT in the
// environment wins (the runtime has applied it already), then an explicit
// --memory-limit / KOBANA_MEMORY_LIMIT, then memoryLimitShare of the
// cgroup's limit under root, else none.
func chooseMemoryLimit(flagValue string, getenv func(string) string, root string) (memoryLimitChoice, error) {
	if getenv("GOMEMLIMIT") != "" {
		return memoryLimitChoice{source: "GOMEMLIMIT"}, nil
	}
	switch v := strings.TrimSpace(flagValue); strings.ToLower(v) {
	case "off", "none":
		return memoryLimitChoice{source: "none"}, nil
	case "":
	default:
		n, err := parseSize(v)
		if err != nil {
			return memoryLimitChoice{}, fmt.Errorf("--memory-limit: %w", err)
		}
		return memoryLimitChoice{bytes: n, source: "--memory-limit"}, nil
	}
	limit, source, err := cgroupMemoryLimit(root)
	if err != nil || limit == 0 {
		return memoryLimitChoice{source: "none"}, err
	}
	return memoryLimitChoice{bytes: int64(float64(limit) * memoryLimitShare), source: source, cgroup: limit}, nil
}

// cgroupMemoryLimit reads the memory limit of the process's cgroup under
// root: cgroup v2's memory.max ("max": none), else cgroup v1's
// memory/memory.limit_in_bytes (a value near the largest int64: none).
// Neither file: not in a limited container, no error.
func cgroupMemoryLimit(root string) (int64, string, error) {
	raw, err := os.ReadFile(filepath.Join(root, "memory.max"))
	if err == nil {
		v := strings.TrimSpace(string(raw))
		if v == "max" {
			return 0, "", nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return 0, "", fmt.Errorf("cgroup v2 memory.max %q: not a size", v)
		}
		return n, "cgroup v2", nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return 0, "", err
	}
	raw, err = os.ReadFile(filepath.Join(root, "memory", "memory.limit_in_bytes"))
	if errors.Is(err, os.ErrNotExist) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", err
	}
	v := strings.TrimSpace(string(raw))
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, "", fmt.Errorf("cgroup v1 memory.limit_in_bytes %q: not a size", v)
	}
	// cgroup v1 writes "no limit" as the largest page-aligned int64.
	if n >= math.MaxInt64/2 {
		return 0, "", nil
	}
	return n, "cgroup v1", nil
}

// sizeUnits are the suffixes parseSize takes: binary (KiB…) as
// GOMEMLIMIT writes them, decimal (KB, K…) as people do.
var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12},
	{"b", 1},
}

// parseSize reads a size such as 2GiB, 1.5GB, 512MiB or 1073741824.
func parseSize(s string) (int64, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSpace(strings.TrimSuffix(v, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || f*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a size (want e.g. 2GiB, 512MiB or bytes)", s)
	}
	if n := int64(f * mult); n >= 1<<20 {
		return n, nil
	}
	return 0, fmt.Errorf("%q is below 1MiB: no process runs in that", s)
}

// applyMemoryLimit sets the heap's soft limit chosen by chooseMemoryLimit
// (debug.SetMemoryLimit) at the start of serve and worker, and logs it.
func applyMemoryLimit(flagValue string, getenv func(string) string, root string, log *slog.Logger) error {
	c, err := chooseMemoryLimit(flagValue, getenv, root)
	if err != nil {
		return err
	}
	if c.bytes > 0 {
		debug.SetMemoryLimit(c.bytes)
	}
	attrs := []any{"source", c.source}
	if c.source == "GOMEMLIMIT" {
		attrs = append(attrs, "bytes", debug.SetMemoryLimit(-1))
	} else if c.bytes > 0 {
		attrs = append(attrs, "bytes", c.bytes)
	}
	if c.cgroup > 0 {
		attrs = append(attrs, "container_limit", c.cgroup)
	}
	log.Info("memory limit", attrs...)
	return nil
}
