package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// setting is one configuration value: a flag, the environment variable
// that sets the same value, and its default. The table of settings is the
// one place both `serve --help` and the README's table come from.
type setting struct {
	flag, env, def, help string
	value                *string
}

type settings []*setting

func (s *settings) add(flag, env, def, help string) *string {
	v := new(string)
	*s = append(*s, &setting{flag: flag, env: env, def: def, help: help, value: v})
	return v
}

// parse reads flags over environment variables over defaults.
func (s settings) parse(name string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	for _, st := range s {
		def := st.def
		if v, ok := os.LookupEnv(st.env); ok {
			def = v
		}
		fs.StringVar(st.value, st.flag, def, st.help)
	}
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: kobana-mcp %s [flags]\n\nEvery flag can also be set by its environment variable; a flag wins.\n\n", name)
		fmt.Fprintf(out, "  %-26s %-30s %-24s %s\n", "flag", "environment", "default", "meaning")
		for _, st := range s {
			def := st.def
			if def == "" {
				def = `""`
			}
			fmt.Fprintf(out, "  --%-24s %-30s %-24s %s\n", st.flag, st.env, def, st.help)
		}
	}
	return fs.Parse(args)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

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
