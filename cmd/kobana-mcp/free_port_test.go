package main

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// portsGiven are the ports freePort has handed out in this test process,
// so two tests never get the same one.
var portsGiven = struct {
	sync.Mutex
	m map[int]bool
}{m: map[int]bool{}}

// freePort is a loopback address no one listens on, for a child `serve`
// told to listen there. A port the kernel picks for `:0` is an ephemeral
// one, and between closing it and the child binding it any outgoing
// connection of the machine (to PostgreSQL, Redis, another test's server)
// may take it as its source port — seen in CI as "bind: address already in
// use". So the port is chosen below the kernel's ephemeral range
// (/proc/sys/net/ipv4/ip_local_port_range), where only listeners that ask
// for it by number go, never twice in this process, and checked free.
func freePort(t *testing.T) string {
	t.Helper()
	low := ephemeralLow()
	if low-1 > 20000 {
		portsGiven.Lock()
		defer portsGiven.Unlock()
		for range 200 {
			p := 20000 + rand.IntN(low-20000)
			if portsGiven.m[p] {
				continue
			}
			addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				continue
			}
			ln.Close()
			portsGiven.m[p] = true
			return addr
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// ephemeralLow is the first port of the kernel's ephemeral range (32768
// where it cannot be read: Linux's default).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 32768
	}
	return n
}

// TestFreePortBelowTheEphemeralRange: the ports handed out are outside the
// range outgoing connections take their source ports from, and distinct.
func TestFreePortBelowTheEphemeralRange(t *testing.T) {
	t.Parallel()
	low := ephemeralLow()
	if low <= 20001 {
		t.Skipf("the ephemeral range starts at %d: no room below it", low)
	}
	seen := map[string]bool{}
	for range 50 {
		addr := freePort(t)
		_, port, _ := net.SplitHostPort(addr)
		p, _ := strconv.Atoi(port)
		if p < 20000 || p >= low {
			t.Fatalf("freePort gave %s, want a port in [20000, %d)", addr, low)
		}
		if seen[addr] {
			t.Fatalf("freePort gave %s twice", addr)
		}
		seen[addr] = true
	}
}
