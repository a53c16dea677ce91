package main

import (
	"encoding/hex"
	"fmt"

	"github.com/kobana/kobana-mcp/productkit"
)

// settings is the table of a command's settings (productkit.Settings):
// the binary's shared ones and each product's own.
type settings = productkit.Settings

func splitList(s string) []string { return productkit.SplitList(s) }

// stateSecrets reads KOBANA_STATE_SECRETS: comma-separated hex secrets of at
// least 32 bytes, the first sealing, all opening.
func stateSecrets(s string) ([][]byte, error) {
	var out [][]byte
	for _, p := range splitList(s) {
		b, err := hex.DecodeString(p)
		if err != nil || len(b) < 32 {
			return nil, fmt.Errorf("each state secret must be at least 64 hex characters (32 bytes)")
		}
		out = append(out, b)
	}
	return out, nil
}
