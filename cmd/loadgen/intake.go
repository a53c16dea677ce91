package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// intake posts n copies of an e-mail (each with its own Message-ID) to the
// Inbox's POST /api/v1/intake/messages, workers at a time, then follows
// GET /api/v1/emails until none is left to process. It
// prints the rate of acceptance, the end-to-end rate and, given the
// server's pid (and its workers'), the servers' CPU for the whole batch
// (docs/performance.md, "Benchmarks", "The signed-in path").
func intake(api, token, to, emlFile string, n, workers int, pids []int, timeout time.Duration) {
	eml, err := os.ReadFile(emlFile)
	if err != nil {
		fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	do := func(method, url string, body []byte, ct string) ([]byte, int, error) {
		req, _ := http.NewRequest(method, url, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return b, resp.StatusCode, err
	}
	count := func(status string, limit int) int {
		count, cursor := 0, ""
		for {
			url := api + "/emails?status=" + status + "&limit=" + strconv.Itoa(limit)
			if cursor != "" {
				url += "&cursor=" + cursor
			}
			b, status, err := do("GET", url, nil, "")
			if err != nil || status != 200 {
				fatal(fmt.Errorf("emails: %d %v %s", status, err, b))
			}
			var page struct {
				Data []json.RawMessage
				Meta struct {
					NextCursor *string `json:"next_cursor"`
				}
			}
			if err := json.Unmarshal(b, &page); err != nil {
				fatal(err)
			}
			count += len(page.Data)
			if page.Meta.NextCursor == nil || limit == 1 {
				return count
			}
			cursor = *page.Meta.NextCursor
		}
	}
	countProcessed := func() int { return count("processed", 200) }
	// The wait asks whether any e-mail is left to process (one item of each
	// such status), rather than listing every processed one ten times a
	// second: the server's CPU is the processing's, not the benchmark's.
	pending := func() int { return count("received", 1) + count("approved", 1) + count("processing", 1) }
	before := countProcessed()
	cpu0 := cpuTimes(pids)
	start := time.Now()
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(n) {
					return
				}
				msg := bytes.Replace(eml, []byte("Message-ID: <fatura-123@acme.example>"),
					[]byte("Message-ID: <fatura-"+strconv.FormatInt(i, 10)+"-"+strconv.FormatInt(start.UnixNano(), 36)+"@acme.example>"), 1)
				b, status, err := do("POST", api+"/intake/messages?to="+to, msg, "message/rfc822")
				if err != nil || status != http.StatusAccepted {
					if failed.Add(1) == 1 {
						fmt.Fprintf(os.Stderr, "loadgen: intake: %d %v %s\n", status, err, b)
					}
				}
			}
		})
	}
	wg.Wait()
	accepted := time.Since(start)
	for pending() > 0 && time.Since(start) < timeout {
		time.Sleep(50 * time.Millisecond)
	}
	total := time.Since(start)
	processed := countProcessed() - before
	out := map[string]any{"target": "intake", "emails": n, "failed": failed.Load(), "processed": processed,
		"accepted_per_s": int(float64(n) / accepted.Seconds()), "processed_per_s": int(float64(processed) / total.Seconds()),
		"seconds": total.Round(time.Millisecond).Seconds()}
	if cpu0 > 0 {
		cpu := (cpuTimes(pids) - cpu0).Seconds()
		out["server_cpu_s"] = cpu
		if processed > 0 {
			out["cpu_s_per_1000"] = cpu * 1000 / float64(processed)
		}
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}

// cpuTimes is the CPU time of several processes together.
func cpuTimes(pids []int) time.Duration {
	var t time.Duration
	for _, p := range pids {
		t += cpuTime(p)
	}
	return t
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "loadgen:", err)
	os.Exit(1)
}
