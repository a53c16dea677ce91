package main

import (
	"context"
	"fmt"

	"github.com/kobana/kobana-mcp/mcp"
)

// prompts are the prompt fixtures. The mcp package checks required
// arguments (and refuses unknown ones) with -32602 before a handler runs, so
// the handlers can index req.Arguments directly.
func prompts() []mcp.Prompt {
	return []mcp.Prompt{
		{
			Name:        "test_simple_prompt",
			Description: "A prompt with no arguments.",
			Get: func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return userText("This is a simple prompt for testing."), nil
			},
		},
		{
			Name:        "test_prompt_with_arguments",
			Description: "A prompt that quotes its two arguments.",
			Arguments: []mcp.PromptArgument{
				{Name: "arg1", Description: "First argument", Required: true},
				{Name: "arg2", Description: "Second argument", Required: true},
			},
			Get: func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return userText(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", req.Arguments["arg1"], req.Arguments["arg2"])), nil
			},
			// completion-complete asks for arg1 of this prompt.
			Complete: completeFrom([]string{"paris", "park", "party", "testValue1", "testValue2"}),
		},
		{
			Name:        "test_prompt_with_embedded_resource",
			Description: "A prompt that embeds the resource named by its argument.",
			Arguments: []mcp.PromptArgument{
				{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
			},
			Get: func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
					{Role: "user", Content: mcp.EmbeddedResource(mcp.TextResource(req.Arguments["resourceUri"], "text/plain", "Embedded resource content for testing."))},
					{Role: "user", Content: mcp.TextContent("Please process the embedded resource above.")},
				}}, nil
			},
		},
		{
			Name:        "test_prompt_with_image",
			Description: "A prompt that carries an image.",
			Get: func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
					{Role: "user", Content: mcp.ImageContent(pngBase64, "image/png")},
					{Role: "user", Content: mcp.TextContent("Please analyze the image above.")},
				}}, nil
			},
		},
		{
			Name: "test_input_required_result_prompt",
			Description: "A prompt that first asks the person what context to use (input_required on " +
				"prompts/get), then renders with it.",
			Get: promptWithContext,
		},
	}
}

// userText is a rendered prompt of one user text message.
func userText(text string) *mcp.GetPromptResult {
	return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(text)}}}
}

// promptWithContext shows that input_required is not only for tools: a
// prompt may ask before it renders (input-required-result-non-tool-request).
func promptWithContext(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	answer, err := elicitAnswer(&req.Request, "user_context")
	if err != nil {
		return nil, err
	}
	given := acceptedString(answer, "context")
	if answer == nil || (answer.Action == "accept" && given == "") {
		return mcp.PromptInputRequired(&mcp.InputRequired{Requests: map[string]mcp.InputRequest{
			"user_context": askForString("What context should the prompt use?", "context"),
		}}), nil
	}
	if answer.Action != "accept" {
		return userText("Answer without any particular context."), nil
	}
	return userText("Answer using this context: " + given), nil
}
