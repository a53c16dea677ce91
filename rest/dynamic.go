package rest

import (
	"context"
	"fmt"
	"reflect"
)

// HandleType declares an operation whose input struct is built at run
// time (reflect.StructOf) rather than written in Go: operations declared
// once for every product (productkit/webhookapi) whose argument names and
// descriptions depend on the product — the events a webhook may subscribe
// to, how lists page, which optional scope field exists. typ is read
// exactly like a Handle input (the same struct tags, the same schema, the
// same validation); the handlers receive a pointer to a value of typ.
//
// describe, when set, makes the operation a confirmed one, as
// HandleConfirmed does; nil declares it as Handle would.
func HandleType(a *API, op Operation, typ reflect.Type, describe func(ctx context.Context, in any) (string, error), fn func(ctx context.Context, in any) (*Response, error)) {
	if typ.Kind() != reflect.Struct {
		panic(fmt.Sprintf("rest: operation %s: HandleType needs a struct type, not %s", op.ID, typ))
	}
	handleType(a, op, typ, describe, fn, fn)
}
