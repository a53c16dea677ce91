// Command webhook-receiver is a development receiver for Kobana webhooks:
// it listens on loopback, checks each delivery's X-Kobana-Signature with
// the webhook's signing secret, prints the event and answers 200 (or 498,
// as Kobana's receivers do, when the signature does not verify).
//
//	go run ./examples/webhook-receiver -addr 127.0.0.1:9000 -secret whsec_…
//
// After a rotation (rotate-secret) a product with a grace period signs
// every delivery with the new secret and the old one, space-separated in
// the header, until the grace ends: a receiver still started with the old
// secret keeps verifying, and -secret whsec_new,whsec_old accepts either
// while you switch.
//
// Point a webhook at http://127.0.0.1:9000/ on a server started with
// --webhook-allow-private-targets (development only: production webhooks
// reach public https URLs only).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/kobana/kobana-mcp/platform/webhooks"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "listen address")
	secret := flag.String("secret", os.Getenv("KOBANA_WEBHOOK_SECRET"), "the webhook's signing secret (whsec_…), or several separated by commas (during a rotation); empty: print without checking")
	flag.Parse()
	log.Printf("webhook receiver on http://%s/", *addr)
	log.Fatal(http.ListenAndServe(*addr, handler(splitSecrets(*secret), os.Stdout)))
}

func splitSecrets(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// handler verifies each delivery against any of secrets (none: no check)
// and prints it to out.
func handler(secrets []string, out io.Writer) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 10<<20))
		if err != nil {
			http.Error(w, "read error", http.StatusBadRequest)
			return
		}
		verdict := "signature not checked (no -secret)"
		if len(secrets) > 0 {
			ok := false
			for _, s := range secrets {
				ok = ok || webhooks.Verify(s, body, r.Header.Get(webhooks.SignatureHeader))
			}
			if !ok {
				fmt.Fprintf(out, "REJECTED %s delivery %s: bad signature\n", r.Header.Get("X-Kobana-Event"), r.Header.Get("X-Kobana-Delivery-Id"))
				w.WriteHeader(498)
				return
			}
			verdict = "signature verified"
		}
		var pretty bytes.Buffer
		if json.Indent(&pretty, body, "", "  ") != nil {
			pretty.Write(body)
		}
		fmt.Fprintf(out, "%s delivery %s (%s)\n%s\n\n", r.Header.Get("X-Kobana-Event"), r.Header.Get("X-Kobana-Delivery-Id"), verdict, pretty.String())
		w.WriteHeader(http.StatusOK)
	})
	return mux
}
