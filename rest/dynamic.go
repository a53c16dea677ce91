package rest

import (
	"context"
	"fmt"
	"net/http"
	"reflect"

	"github.com/kobana/kobana-mcp/mcp/restbridge"
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
//
// It mirrors handle (api.go) step for step; a change to one belongs in
// both.
func HandleType(a *API, op Operation, typ reflect.Type, describe func(ctx context.Context, in any) (string, error), fn func(ctx context.Context, in any) (*Response, error)) {
	spec, err := analyseInput(typ, op.Method)
	if err != nil {
		panic(fmt.Sprintf("rest: operation %s: %v", op.ID, err))
	}
	reg := a.register(op, spec)
	reg.describes = describe != nil
	hasBody := op.Method == http.MethodPost || op.Method == http.MethodPut || op.Method == http.MethodPatch
	a.mux.HandleFunc(op.Method+" "+a.cfg.BasePath+op.Path, func(w http.ResponseWriter, r *http.Request) {
		r, e := a.authorize(r, &reg.op)
		if e != nil {
			a.WriteError(w, e)
			return
		}
		if hasBody {
			r.Body = http.MaxBytesReader(w, r.Body, a.cfg.MaxBodyBytes)
		}
		serve := func(w http.ResponseWriter, r *http.Request) {
			in := reflect.New(typ).Interface()
			if e := spec.decode(r, hasBody, in); e != nil {
				a.WriteError(w, e)
				return
			}
			r = r.WithContext(withRequest(r.Context(), r))
			if restbridge.Describing(r.Context()) {
				if describe == nil {
					a.WriteError(w, errCannotDescribe(&reg.op))
					return
				}
				msg, err := describe(r.Context(), in)
				if err != nil {
					a.fail(w, r, &reg.op, err)
					return
				}
				writeJSON(w, http.StatusOK, map[string]string{restbridge.DescribeMessageMember: msg})
				return
			}
			res, err := fn(r.Context(), in)
			if err != nil {
				a.fail(w, r, &reg.op, err)
				return
			}
			a.WriteResponse(w, res)
		}
		if hasBody && a.cfg.Idempotency != nil && !restbridge.Describing(r.Context()) {
			a.serveIdempotent(w, r, serve)
			return
		}
		serve(w, r)
	})
}
