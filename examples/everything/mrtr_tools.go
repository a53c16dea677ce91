package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kobana/kobana-mcp/mcp"
)

// The multi-round-trip fixtures (SEP-2322, 2026-07-28). A server of that
// revision never sends requests to the client. When a tool needs something
// only the client can give (a person's answer, a model completion, the
// client's roots), it returns resultType "input_required" with the questions
// in inputRequests and a sealed requestState. The client answers by sending
// the same tools/call again with inputResponses and the state echoed.
//
// The mcp package does the protocol work around these handlers: it seals and
// opens requestState (a tampered or foreign state is -32602 before any
// handler runs), keeps only the answers to questions the state asked, refuses
// with -32021 a question the client has no capability to answer, and tells a
// 2025 client, which cannot answer at all, that the tool did not run. The
// handlers below only decide what to ask and what to do with the answers.
//
// Each handler treats a missing answer as "ask again" rather than as an
// error, as SEP-2322 recommends, and a malformed answer as -32602.

// mrtrTools are the fixtures of the input-required-result-* scenarios and of
// server-stateless's streaming-elicitation probe.
func mrtrTools() []mcp.Tool {
	tools := []mcp.Tool{
		{
			Name:        "test_input_required_result_elicitation",
			Description: "Asks the person for their name (elicitation), then greets them.",
			Handler:     greetByName,
		},
		{
			Name:        "test_input_required_result_sampling",
			Description: "Asks the client's model a question (sampling), then returns its answer.",
			Handler:     askTheModel,
		},
		{
			Name:        "test_input_required_result_list_roots",
			Description: "Asks the client for its roots, then counts them.",
			Handler:     countRoots,
		},
		{
			Name:        "test_input_required_result_request_state",
			Description: "Asks for a confirmation and finishes only when the retry carries the requestState it issued.",
			Handler:     confirmWithState("state-ok: confirmed"),
		},
		{
			Name:        "test_input_required_result_tampered_state",
			Description: "Asks for a confirmation with a sealed requestState; a retry whose state was altered is refused with -32602.",
			Handler:     confirmWithState("Confirmed."),
		},
		{
			Name:        "test_input_required_result_multiple_inputs",
			Description: "Asks for a name (elicitation), a greeting (sampling) and the client's roots in one round.",
			Handler:     multipleInputs,
		},
		{
			Name:        "test_input_required_result_multi_round",
			Description: "Asks two questions in two successive rounds, carrying the first answer in the requestState.",
			Handler:     multiRound,
		},
		{
			Name:        "test_input_required_result_capabilities",
			Description: "Asks only what the client declared it can answer: elicitation, sampling, or both.",
			Handler:     askWithinCapabilities,
		},
		{
			Name: "test_streaming_elicitation",
			Description: "Where a streaming server would send elicitation/create mid-call, this one returns " +
				"it as an input_required result and finishes on the retry.",
			Handler: streamingElicitation,
		},
	}
	for i := range tools {
		tools[i] = withInputSchema(tools[i], noArguments)
	}
	return tools
}

// ask returns an input_required result carrying requests and, sealed in its
// requestState, data (nil when the retry needs no memory of this round).
func ask(requests map[string]mcp.InputRequest, data []byte) *mcp.CallToolResult {
	return mcp.InputRequiredResult(&mcp.InputRequired{Requests: requests, Data: data})
}

// askForString is a form elicitation for one required string field.
func askForString(message, field string) mcp.InputRequest {
	return mcp.ElicitForm(message, map[string]any{
		"type":       "object",
		"properties": map[string]any{field: map[string]any{"type": "string"}},
		"required":   []string{field},
	})
}

// askForConfirmation is a form elicitation for one required boolean, "ok".
func askForConfirmation(message string) mcp.InputRequest {
	return mcp.ElicitForm(message, map[string]any{
		"type":       "object",
		"properties": map[string]any{"ok": map[string]any{"type": "boolean"}},
		"required":   []string{"ok"},
	})
}

// askTheModelFor is a sampling request with one user message.
func askTheModelFor(text string, maxTokens int) mcp.InputRequest {
	return mcp.InputRequest{Method: mcp.MethodSample, Params: map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}}},
		"maxTokens": maxTokens,
	}}
}

// askForRoots is a roots/list request.
func askForRoots() mcp.InputRequest {
	return mcp.InputRequest{Method: mcp.MethodListRoots, Params: map[string]any{}}
}

// elicitAnswer reads the answer under key as an elicitation result. It
// returns nil, nil when the client did not answer that key (ask again) and
// -32602 when the answer is not an ElicitResult.
func elicitAnswer(req *mcp.Request, key string) (*mcp.ElicitResult, error) {
	resp, ok := req.InputResponses[key]
	if !ok {
		return nil, nil
	}
	res, err := resp.Elicit()
	if err != nil {
		return nil, mcp.InvalidParams("inputResponses[%q]: %v", key, err)
	}
	return res, nil
}

// acceptedString returns the string field of an accepted elicitation, "" when
// the person declined, cancelled or left the field out.
func acceptedString(res *mcp.ElicitResult, field string) string {
	if res == nil || res.Action != "accept" {
		return ""
	}
	s, _ := res.Content[field].(string)
	return s
}

// declined answers a person who declined or cancelled: nothing was done, and
// the model is told so in a tool execution error.
func declined(res *mcp.ElicitResult) *mcp.CallToolResult {
	return mcp.ErrorResult(fmt.Sprintf("The person chose %q; nothing was done.", res.Action))
}

// sampledText reads the answer under key as a CreateMessageResult and returns
// its text. The content may be one block or, in newer clients, a list.
func sampledText(req *mcp.Request, key string) (text string, answered bool, err error) {
	resp, ok := req.InputResponses[key]
	if !ok {
		return "", false, nil
	}
	var res struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(resp.Raw, &res); err != nil || len(res.Content) == 0 {
		return "", true, mcp.InvalidParams("inputResponses[%q] must be a CreateMessageResult with content", key)
	}
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var blocks []block
	var one block
	if json.Unmarshal(res.Content, &one) == nil {
		blocks = []block{one}
	} else if json.Unmarshal(res.Content, &blocks) != nil {
		return "", true, mcp.InvalidParams("inputResponses[%q].content must be a content block or a list of them", key)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n"), true, nil
}

// rootCount reads the answer under key as a ListRootsResult.
func rootCount(req *mcp.Request, key string) (n int, answered bool, err error) {
	resp, ok := req.InputResponses[key]
	if !ok {
		return 0, false, nil
	}
	var res struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	if err := json.Unmarshal(resp.Raw, &res); err != nil || res.Roots == nil {
		return 0, true, mcp.InvalidParams("inputResponses[%q] must be a ListRootsResult", key)
	}
	return len(res.Roots), true, nil
}

// greetByName: user_name → "Hello, <name>!". It needs no requestState, so a
// client that answers without echoing one is still served.
func greetByName(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answer, err := elicitAnswer(&req.Request, "user_name")
	switch {
	case err != nil:
		return nil, err
	case answer == nil:
		return ask(map[string]mcp.InputRequest{"user_name": askForString("What is your name?", "name")}, nil), nil
	case answer.Action != "accept":
		return declined(answer), nil
	}
	name := acceptedString(answer, "name")
	if name == "" {
		return ask(map[string]mcp.InputRequest{"user_name": askForString("What is your name?", "name")}, nil), nil
	}
	return mcp.TextResult("Hello, " + name + "!"), nil
}

// askTheModel: capital_question → the model's answer.
func askTheModel(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	text, answered, err := sampledText(&req.Request, "capital_question")
	switch {
	case err != nil:
		return nil, err
	case !answered:
		return ask(map[string]mcp.InputRequest{"capital_question": askTheModelFor("What is the capital of France?", 100)}, nil), nil
	}
	return mcp.TextResult("The model answered: " + text), nil
}

// countRoots: client_roots → "Found N root(s)".
func countRoots(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n, answered, err := rootCount(&req.Request, "client_roots")
	switch {
	case err != nil:
		return nil, err
	case !answered:
		return ask(map[string]mcp.InputRequest{"client_roots": askForRoots()}, nil), nil
	}
	return mcp.TextResult(fmt.Sprintf("Found %d root(s)", n)), nil
}

// confirmationIssued is sealed into the state of a confirmation, so the retry
// can tell it answers this tool's question and not a state-less guess.
var confirmationIssued = []byte("confirmation-issued")

// confirmWithState asks "Please confirm" and finishes with done only when
// the retry carries the state this tool issued (the mcp package has already
// checked it is authentic and bound to this very call).
func confirmWithState(done string) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		again := ask(map[string]mcp.InputRequest{"confirm": askForConfirmation("Please confirm")}, confirmationIssued)
		if req.State == nil || string(req.State.Data) != string(confirmationIssued) {
			return again, nil
		}
		answer, err := elicitAnswer(&req.Request, "confirm")
		switch {
		case err != nil:
			return nil, err
		case answer == nil:
			return again, nil
		case answer.Action != "accept":
			return declined(answer), nil
		}
		if ok, _ := answer.Content["ok"].(bool); !ok {
			return mcp.ErrorResult("Not confirmed; nothing was done."), nil
		}
		return mcp.TextResult(done), nil
	}
}

// multipleInputs asks three questions of three kinds at once and finishes
// when all three are answered under the state it issued. A partial answer
// asks all three again: the state of a round holds no earlier answers.
func multipleInputs(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	issued := []byte("multiple-inputs")
	again := ask(map[string]mcp.InputRequest{
		"user_name":    askForString("What is your name?", "name"),
		"greeting":     askTheModelFor("Generate a greeting", 50),
		"client_roots": askForRoots(),
	}, issued)
	if req.State == nil || string(req.State.Data) != string(issued) {
		return again, nil
	}
	answer, err := elicitAnswer(&req.Request, "user_name")
	if err != nil {
		return nil, err
	}
	greeting, sampled, err := sampledText(&req.Request, "greeting")
	if err != nil {
		return nil, err
	}
	roots, listed, err := rootCount(&req.Request, "client_roots")
	if err != nil {
		return nil, err
	}
	if answer == nil || !sampled || !listed {
		return again, nil
	}
	if answer.Action != "accept" {
		return declined(answer), nil
	}
	return mcp.TextResult(fmt.Sprintf("Name: %s. Greeting: %s. Found %d root(s).",
		acceptedString(answer, "name"), greeting, roots)), nil
}

// roundState is what multiRound seals between its rounds: which question is
// outstanding and the answer to the first one.
type roundState struct {
	Step int    `json:"step"`
	Name string `json:"name,omitempty"`
}

func (s roundState) seal() []byte {
	b, _ := json.Marshal(s)
	return b
}

// multiRound asks for a name, then, in a second round, for a colour. The
// second round's state differs from the first (it carries the name), so each
// state only continues the round it was issued for.
func multiRound(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var st roundState
	if req.State != nil {
		if err := json.Unmarshal(req.State.Data, &st); err != nil {
			return nil, fmt.Errorf("multi_round: sealed state unreadable: %w", err)
		}
	}
	step1 := func() *mcp.CallToolResult {
		return ask(map[string]mcp.InputRequest{"step1": askForString("Step 1: What is your name?", "name")}, roundState{Step: 1}.seal())
	}
	step2 := func(name string) *mcp.CallToolResult {
		return ask(map[string]mcp.InputRequest{"step2": askForString("Step 2: What is your favorite color?", "color")}, roundState{Step: 2, Name: name}.seal())
	}
	switch st.Step {
	case 1:
		answer, err := elicitAnswer(&req.Request, "step1")
		switch {
		case err != nil:
			return nil, err
		case answer == nil:
			return step1(), nil
		case answer.Action != "accept":
			return declined(answer), nil
		}
		return step2(acceptedString(answer, "name")), nil
	case 2:
		answer, err := elicitAnswer(&req.Request, "step2")
		switch {
		case err != nil:
			return nil, err
		case answer == nil:
			return step2(st.Name), nil
		case answer.Action != "accept":
			return declined(answer), nil
		}
		return mcp.TextResult(fmt.Sprintf("%s's favorite color is %s.", st.Name, acceptedString(answer, "color"))), nil
	}
	return step1(), nil
}

// askWithinCapabilities asks only what this request's client capabilities
// allow: a form elicitation if it declared elicitation (form), a sampling
// request if it declared sampling. The mcp package would refuse anything
// else with -32021; this tool adapts instead. The keys asked are sealed in
// the state, so the retry knows which answers to expect.
func askWithinCapabilities(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	requests := map[string]mcp.InputRequest{}
	if req.Capabilities.ElicitForm() {
		requests["elicit_input"] = askForString("Please provide some input", "input")
	}
	if req.Capabilities.Has("sampling") {
		requests["sample_input"] = askTheModelFor("Sample request", 50)
	}
	if len(requests) == 0 {
		return mcp.ErrorResult("This tool needs the elicitation or the sampling client capability; the request declared neither."), nil
	}
	keys := make([]string, 0, len(requests))
	for _, k := range []string{"elicit_input", "sample_input"} {
		if _, ok := requests[k]; ok {
			keys = append(keys, k)
		}
	}
	issued := []byte(strings.Join(keys, ","))
	if req.State == nil || string(req.State.Data) != string(issued) {
		return ask(requests, issued), nil
	}
	var got []string
	if answer, err := elicitAnswer(&req.Request, "elicit_input"); err != nil {
		return nil, err
	} else if answer != nil {
		got = append(got, "input: "+acceptedString(answer, "input"))
	}
	if text, answered, err := sampledText(&req.Request, "sample_input"); err != nil {
		return nil, err
	} else if answered {
		got = append(got, "sample: "+text)
	}
	if len(got) < len(keys) {
		return ask(requests, issued), nil
	}
	return mcp.TextResult(strings.Join(got, "; ")), nil
}

// streamingElicitation stands in for a tool that, on a streaming server,
// would send elicitation/create in the middle of the call: here the question
// travels as an input_required result, never as a request on a stream.
func streamingElicitation(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	answer, err := elicitAnswer(&req.Request, "user_input")
	switch {
	case err != nil:
		return nil, err
	case answer == nil:
		return ask(map[string]mcp.InputRequest{"user_input": askForString("Please provide some input", "input")}, nil), nil
	case answer.Action != "accept":
		return declined(answer), nil
	}
	return mcp.TextResult("Received: " + acceptedString(answer, "input")), nil
}
