package main

import (
	"net"
	"regexp"
	"strings"
	"testing"
)

// The walkthroughs are written for serve's default ports (8081–8083, the
// Inbox's SMTP intake on 2525), the receivers' (9000, 2526) and the fake
// model's (9001). Run one at
// a time on those ports they took most of this package's test time, so
// TestReadmeWalkthroughs gives each its own free ports: ownPorts rewrites
// the port numbers in the block and in what it must print, and moves the
// listeners the block starts without naming an address (serve through its
// KOBANA_<PRODUCT>_ADDR settings, the webhook receiver with -addr). The
// rest of the block runs as written.

// defaultPorts are the ports the walkthroughs are written for, with the
// serve setting that moves each one ("" when the block names the address
// itself, or the listener is not serve's).
var defaultPorts = []struct{ port, env string }{
	{"8081", "KOBANA_INBOX_ADDR"},
	{"8082", "KOBANA_DUNNING_ADDR"},
	{"8083", "KOBANA_KADU_ADDR"},
	{"2525", "KOBANA_INBOX_SMTP_ADDR"},
	{"2526", ""}, // the Dunning block's SMTP receiver: -addr and --dunning-smtp-port in the block
	{"9000", ""}, // the Inbox block's webhook receiver: -addr, added by rewrite
	{"9001", ""}, // the Kadu block's fake model: -addr and --kadu-model-url in the block
}

var defaultPortRE = regexp.MustCompile(`\b(8081|8082|8083|2525|2526|9000|9001)\b`)

// walkthroughPorts maps each default port to the one a walkthrough uses
// instead.
type walkthroughPorts map[string]string

// ownPorts picks a free loopback port for each default port.
func ownPorts(t *testing.T) walkthroughPorts {
	t.Helper()
	p := walkthroughPorts{}
	for _, d := range defaultPorts {
		_, port, err := net.SplitHostPort(freePort(t))
		if err != nil {
			t.Fatal(err)
		}
		p[d.port] = port
	}
	return p
}

// rewrite is text with every default port number replaced by its own.
func (p walkthroughPorts) rewrite(text string) string {
	return defaultPortRE.ReplaceAllStringFunc(text, func(port string) string { return p[port] })
}

// script is the walkthrough on its own ports: the numbers rewritten and
// the webhook receiver, started without -addr, given its address.
func (p walkthroughPorts) script(block string) string {
	s := p.rewrite(block)
	return strings.ReplaceAll(s, "./webhook-receiver -secret", "./webhook-receiver -addr 127.0.0.1:"+p["9000"]+" -secret")
}

// env is the setting of each serve listener the block does not move
// itself, to its own port.
func (p walkthroughPorts) env() []string {
	var out []string
	for _, d := range defaultPorts {
		if d.env != "" {
			out = append(out, d.env+"=127.0.0.1:"+p[d.port])
		}
	}
	return out
}

// TestWalkthroughOwnPorts checks the rewrite on the real blocks: no
// default port is left in any of them, each listener a block starts is
// moved, and nothing but the port numbers (and the receiver's address)
// changes.
func TestWalkthroughOwnPorts(t *testing.T) {
	t.Parallel()
	p := ownPorts(t)
	for name, block := range walkthroughs(t) {
		s := p.script(block)
		if m := defaultPortRE.FindString(s); m != "" {
			t.Errorf("walkthrough %s still names port %s after the rewrite", name, m)
		}
		if strings.Contains(block, "./webhook-receiver") && !strings.Contains(s, "./webhook-receiver -addr 127.0.0.1:"+p["9000"]) {
			t.Errorf("walkthrough %s starts the webhook receiver on its default address after the rewrite", name)
		}
		if strings.Contains(block, "./smtp-receiver") && !strings.Contains(s, "./smtp-receiver -addr 127.0.0.1:"+p["2526"]) {
			t.Errorf("walkthrough %s starts the SMTP receiver on its default address after the rewrite", name)
		}
		if !strings.Contains(block, "./kobana-mcp serve") {
			t.Errorf("walkthrough %s starts no server", name)
		}
		// Back to the default ports, the block is what the page shows.
		back := s
		for def, own := range p {
			back = regexp.MustCompile(`\b`+own+`\b`).ReplaceAllString(back, def)
		}
		back = strings.ReplaceAll(back, "./webhook-receiver -addr 127.0.0.1:9000 -secret", "./webhook-receiver -secret")
		if back != block {
			t.Errorf("walkthrough %s: the rewrite changed more than its ports", name)
		}
	}
	env := strings.Join(p.env(), " ")
	for _, want := range []string{"KOBANA_INBOX_ADDR=127.0.0.1:" + p["8081"], "KOBANA_KADU_ADDR=127.0.0.1:" + p["8083"], "KOBANA_INBOX_SMTP_ADDR=127.0.0.1:" + p["2525"]} {
		if !strings.Contains(env, want) {
			t.Errorf("the walkthroughs' environment has no %s: %s", want, env)
		}
	}
}
