package refdoc

import (
	"context"
	"testing"
)

type svc struct{}

func (s *svc) list(context.Context) error { return nil }

func (s svc) get(context.Context) error { return nil }

func named(context.Context) error { return nil }

func generic[T any](context.Context) error { return nil }

// register is kept out of line: inlined into its caller, its closure
// would be named after the caller too ("Caller.(*svc).register.func1",
// which outer reads the same).
//
//go:noinline
func (s *svc) register() func(context.Context) error {
	return func(context.Context) error { return nil }
}

// handlerOf names each kind of handler a declaration may be given by its
// file and function, method values included (their code is a wrapper
// the compiler writes, with no file).
func TestHandlerOfNamesFileAndFunction(t *testing.T) {
	s := &svc{}
	cases := []struct {
		impl any
		want handler
	}{
		{named, handler{"productkit/refdoc/handler_test.go", "named"}},
		{s.list, handler{"productkit/refdoc/handler_test.go", "(*svc).list"}},
		{svc{}.get, handler{"productkit/refdoc/handler_test.go", "svc.get"}},
		{generic[int], handler{"productkit/refdoc/handler_test.go", "generic[...]"}},
		{s.register(), handler{"productkit/refdoc/handler_test.go", "(*svc).register.func1"}},
		{repository, handler{"productkit/refdoc/handler.go", "repository"}},
	}
	for _, c := range cases {
		got, err := handlerOf(c.impl)
		if err != nil || got != c.want {
			t.Errorf("handlerOf = %+v, %v; want %+v", got, err, c.want)
		}
	}
	var none func(context.Context) error
	for _, bad := range []any{nil, none, 42} {
		if got, err := handlerOf(bad); err == nil {
			t.Errorf("handlerOf(%#v) = %+v, no error", bad, got)
		}
	}
}

func TestOuterIsTheDeclaredFunction(t *testing.T) {
	for local, want := range map[string][2]string{
		"(*service).registerDebtors.func3":   {"service", "registerDebtors"},
		"(*service).registerDebtors.func3.2": {"service", "registerDebtors"},
		"declare[...].func2":                 {"", "declare"},
		"(*box[...]).get":                    {"box", "get"},
		"plain":                              {"", "plain"},
		"Caller.(*svc).register.func1":       {"svc", "register"},
	} {
		got, err := outer(local)
		if err != nil || len(got) == 0 || got[0] != want {
			t.Errorf("outer(%q) = %v, %v; want %v first", local, got, err, want)
		}
	}
	if got, err := outer("glob..func1"); err == nil {
		t.Errorf("a package variable's closure: %v", got)
	}
}
