package productkit

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Setting is one configuration value: a flag, the environment variable that
// sets the same value, and its default. The table of settings is the one
// place `serve --help` and docs/operating.md's flag table come from.
type Setting struct {
	Flag, Env, Default, Help string
	value                    *string
	explicit                 bool // set by its flag or its environment variable
}

// Settings is an ordered table of settings. The binary declares the shared
// ones; each product declares its own through its Spec.Settings, bound to
// its own typed configuration, so nothing about a product is written in
// the binary (docs/operating.md "Configuration").
type Settings struct {
	list []*Setting
	args []string
}

// Args are the arguments left after the flags (after Parse): a command's
// operands.
func (s *Settings) Args() []string { return s.args }

// Add declares a setting and returns where its value lands once Parse ran.
func (s *Settings) Add(flag, env, def, help string) *string {
	v := new(string)
	s.list = append(s.list, &Setting{Flag: flag, Env: env, Default: def, Help: help, value: v})
	return v
}

// List is the table, in declaration order.
func (s *Settings) List() []Setting {
	out := make([]Setting, len(s.list))
	for i, st := range s.list {
		out[i] = *st
	}
	return out
}

// Parse reads flags over environment variables over defaults; name is the
// command, for the usage text written to out.
func (s *Settings) Parse(name string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	for _, st := range s.list {
		def := st.Default
		if st.Env != "" {
			if v, ok := os.LookupEnv(st.Env); ok {
				def = v
				st.explicit = true
			}
		}
		fs.StringVar(st.value, st.Flag, def, st.Help)
	}
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: kobana-mcp %s [flags]\n\nEvery flag can also be set by its environment variable; a flag wins.\n\n", name)
		fmt.Fprintf(out, "  %-26s %-30s %-24s %s\n", "flag", "environment", "default", "meaning")
		for _, st := range s.list {
			def := st.Default
			if def == "" {
				def = `""`
			}
			fmt.Fprintf(out, "  --%-24s %-30s %-24s %s\n", st.Flag, st.Env, def, st.Help)
		}
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	s.args = fs.Args()
	fs.Visit(func(f *flag.Flag) {
		for _, st := range s.list {
			if st.Flag == f.Name {
				st.explicit = true
			}
		}
	})
	return nil
}

// Explicit reports whether the setting named by its flag was given, by
// the flag or by its environment variable, rather than left at its
// default (after Parse).
func (s *Settings) Explicit(flag string) bool {
	for _, st := range s.list {
		if st.Flag == flag {
			return st.explicit
		}
	}
	return false
}

// SplitList splits a comma-separated setting, dropping blanks.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
