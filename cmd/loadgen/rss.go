package main

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// rssKiB is a process's resident set (VmRSS in /proc/PID/status) in KiB;
// 0 when it cannot be read.
func rssKiB(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	return parseVmRSS(b)
}

// parseVmRSS reads the "VmRSS:   12345 kB" line of /proc/PID/status.
func parseVmRSS(status []byte) int64 {
	for line := range bytes.Lines(status) {
		if v, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			f := bytes.Fields(v)
			if len(f) == 0 {
				return 0
			}
			n, _ := strconv.ParseInt(string(f[0]), 10, 64)
			return n
		}
	}
	return 0
}

// rssSample is the server's resident memory after so many answered
// requests, so growth per request shows in the series.
type rssSample struct {
	Seconds  float64 `json:"s"`
	Requests int64   `json:"requests"`
	KiB      int64   `json:"kib"`
}

// rssSampler samples a process's RSS at a fixed period while the load runs.
type rssSampler struct {
	stopc   chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	samples []rssSample
}

// startRSS takes the first sample now (the "before": after the warm-up)
// and one every period until stop.
func startRSS(pid int, every time.Duration, done *atomic.Int64) *rssSampler {
	r := &rssSampler{stopc: make(chan struct{})}
	start := time.Now()
	take := func() {
		s := rssSample{Seconds: time.Since(start).Round(time.Millisecond).Seconds(), Requests: done.Load(), KiB: rssKiB(pid)}
		r.mu.Lock()
		r.samples = append(r.samples, s)
		r.mu.Unlock()
	}
	take()
	r.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-r.stopc:
				// The last sample, unless the ticker's came just now.
				r.mu.Lock()
				last := r.samples[len(r.samples)-1].Seconds
				r.mu.Unlock()
				if time.Since(start).Seconds()-last > every.Seconds()/10 {
					take()
				}
				return
			case <-t.C:
				take()
			}
		}
	})
	return r
}

// stop takes the last sample (the "after") and returns the series.
func (r *rssSampler) stop() []rssSample {
	close(r.stopc)
	r.wg.Wait()
	return r.samples
}
