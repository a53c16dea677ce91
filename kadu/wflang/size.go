package wflang

import (
	"reflect"
)

// Values an expression builds may share parts: reduce(1..40, [#acc,
// #acc], 1) is forty small arrays in memory but 2^40 elements once
// written out, so nothing that writes a value out (toJSON, string, a
// template's text, the arguments' JSON, flatten) or compares it deeply
// may start before the written size is known. sizeOf walks the value as
// it would be written and stops as soon as it passes a limit, so the walk
// itself is bounded by the limit.

// size is what writing a value out costs: bytes is an upper bound of its
// JSON (indented two spaces per level, as toJSON writes it, HTML-escaped
// as encoding/json does) and of its fmt %v text; nodes counts the values
// visited and leaves the non-containers.
type size struct {
	bytes, nodes, leaves int64
}

// sizeOf measures v; ok is false when bytes would pass byteLimit or
// nodes nodeLimit (the walk stops there).
func sizeOf(v any, byteLimit, nodeLimit int64) (size, bool) {
	w := sizer{byteLimit: byteLimit, nodeLimit: nodeLimit}
	w.walk(reflect.ValueOf(v), 0)
	return w.size, !w.over
}

type sizer struct {
	size
	byteLimit, nodeLimit int64
	over                 bool
}

func (w *sizer) add(b int64) {
	w.bytes += b
	if w.bytes > w.byteLimit || w.nodes > w.nodeLimit {
		w.over = true
	}
}

// element is the cost of one element of a container at depth: a newline,
// the indentation and a comma.
func element(depth int) int64 { return int64(2*depth) + 4 }

// walk measures v at depth: the decoded JSON and expr values directly,
// anything else through reflection, stopping once over a limit.
func (w *sizer) walk(v reflect.Value, depth int) {
	if w.over {
		return
	}
	if w.walkDecoded(v, depth) {
		return
	}
	w.nodes++
	v, ok := w.deref(v)
	if !ok {
		return
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		w.walkList(v, depth)
	case reflect.Map:
		w.walkMap(v, depth)
	case reflect.Struct:
		w.walkStruct(v, depth)
	default:
		w.leaf(v)
	}
}

// walkDecoded measures the values decoded JSON and expr make, without
// reflection (a walk of a million nodes is then milliseconds); false
// when v is not one of them.
func (w *sizer) walkDecoded(v reflect.Value, depth int) bool {
	if !v.IsValid() || !v.CanInterface() {
		return false
	}
	switch x := v.Interface().(type) {
	case []any:
		w.nodes++
		w.add(4)
		for i := 0; i < len(x) && !w.over; i++ {
			w.add(element(depth + 1))
			w.any(x[i], depth+1)
		}
		return true
	case map[string]any:
		w.nodes++
		w.add(6)
		for k, e := range x {
			if w.over {
				return true
			}
			w.add(element(depth+1) + 2 + quoted(k))
			w.any(e, depth+1)
		}
		return true
	}
	return false
}

// deref follows interfaces and pointers to the value they hold; a nil
// one (or none) is measured as null, and ok is false.
func (w *sizer) deref(v reflect.Value) (_ reflect.Value, ok bool) {
	for v.IsValid() && (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) {
		if v.IsNil() {
			w.leaves++
			w.add(5)
			return v, false
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		w.leaves++
		w.add(5) // null, <nil>
		return v, false
	}
	return v, true
}

// leaf measures a value that holds no other: a string, a bool, a number,
// or anything else at 64 bytes.
func (w *sizer) leaf(v reflect.Value) {
	w.leaves++
	switch v.Kind() {
	case reflect.String:
		w.add(quoted(v.String()))
	case reflect.Bool:
		w.add(5)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.add(21)
	case reflect.Float32, reflect.Float64:
		// JSON and %v write a float in at most 24 characters (a
		// template's text writes a whole-marker float itself, in full).
		w.add(24)
	default:
		w.add(64)
	}
}

// walkList measures a slice or an array: brackets, then each element
// on its own line.
func (w *sizer) walkList(v reflect.Value, depth int) {
	w.add(4)
	for i := 0; i < v.Len() && !w.over; i++ {
		w.add(element(depth + 1))
		w.walk(v.Index(i), depth+1)
	}
}

// walkMap measures a map: braces (or map[]), then each key and value.
func (w *sizer) walkMap(v reflect.Value, depth int) {
	w.add(6) // {}, map[]
	it := v.MapRange()
	for it.Next() && !w.over {
		w.add(element(depth+1) + 2)
		w.walk(it.Key(), depth+1)
		w.walk(it.Value(), depth+1)
	}
}

// walkStruct measures a struct: each field's name, and its value when
// exported (64 bytes when not).
func (w *sizer) walkStruct(v reflect.Value, depth int) {
	w.add(8)
	for i := 0; i < v.NumField() && !w.over; i++ {
		w.add(element(depth+1) + int64(len(v.Type().Field(i).Name)) + 4)
		if v.Type().Field(i).IsExported() {
			w.walk(v.Field(i), depth+1)
		} else {
			w.add(64)
		}
	}
}

// quoted is the most a string takes written as JSON (each byte that
// encoding/json escapes takes up to six) or as text.
func quoted(s string) int64 {
	n := int64(2)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == '"', c == '\\', c == '<', c == '>', c == '&', c == 0xe2: // 0xe2 starts U+2028/U+2029
			n += 6
		default:
			n++
		}
	}
	return n
}

// lenOf is the length of a list, map or string, 0 for anything else.
func lenOf(v any) int64 {
	rv := reflect.ValueOf(v)
	for rv.IsValid() && (rv.Kind() == reflect.Interface || rv.Kind() == reflect.Pointer) && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
		return int64(rv.Len())
	}
	return 0
}

// any walks one element, scalars without reflection.
func (w *sizer) any(e any, depth int) {
	switch x := e.(type) {
	case nil:
		w.nodes++
		w.leaves++
		w.add(5)
	case string:
		w.nodes++
		w.leaves++
		w.add(quoted(x))
	case bool:
		w.nodes++
		w.leaves++
		w.add(5)
	case int, int64:
		w.nodes++
		w.leaves++
		w.add(21)
	case float64:
		w.nodes++
		w.leaves++
		w.add(24)
	default:
		w.walk(reflect.ValueOf(e), depth)
	}
}
