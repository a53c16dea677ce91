package rest

// Implementation is the function that does operation id's work: the
// handler it was declared with (Handle, HandleConfirmed, HandleType,
// HandleRaw), or the one SetImplementation named. It is there so the
// product's generated tool reference (docs/tools) can say where each
// tool's code lives; serving never reads it. nil for an unknown id.
func (a *API) Implementation(id string) any {
	for _, reg := range a.ops {
		if reg.op.ID == id {
			return reg.impl
		}
	}
	return nil
}

// SetImplementation names impl as the function doing operation id's work
// when the handler it was declared with is an adapter around it — a
// HandleType handler that converts its run-time input and calls a typed
// function (productkit/webhookapi) — so the reference points at impl and
// not at the adapter every such operation shares. It panics on an
// unknown id, like the other declaration mistakes.
func (a *API) SetImplementation(id string, impl any) {
	for _, reg := range a.ops {
		if reg.op.ID == id {
			reg.impl = impl
			return
		}
	}
	panic("rest: SetImplementation: no operation " + id)
}
