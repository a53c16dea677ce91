package rest

import (
	"reflect"
	"sync"
)

// inputMemo keeps analyseInput's answer per input type and method for the
// life of the process. The analysis is a pure function of the two (the
// struct's fields and tags, and where a method puts unplaced fields), and
// its answer is read-only once made (the tool catalog clones the schema it
// changes, tools.go), so every API that declares an operation over the same
// input shares one: a product is assembled more than once (its scopes, its
// catalog, each replica's own listener, every test's server), and the
// analysis — reflection, schema generation, a plan per field — was most of
// each assembly's CPU (docs/decisions.md "Inputs analysed once").
var inputMemo sync.Map // inputKey → inputAnalysis

type inputKey struct {
	typ    reflect.Type
	method string
}

type inputAnalysis struct {
	spec *inputSpec
	err  error
}

// analysedInput is analyseInput, remembered.
func analysedInput(typ reflect.Type, method string) (*inputSpec, error) {
	k := inputKey{typ, method}
	if v, ok := inputMemo.Load(k); ok {
		a := v.(inputAnalysis)
		return a.spec, a.err
	}
	spec, err := analyseInput(typ, method)
	v, _ := inputMemo.LoadOrStore(k, inputAnalysis{spec, err})
	a := v.(inputAnalysis)
	return a.spec, a.err
}
