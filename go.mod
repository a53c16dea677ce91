module github.com/kobana/kobana-mcp

go 1.26

require (
	github.com/go-json-experiment/json v1.27.2
	github.com/google/jsonschema-go v0.4.3
)

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/text v0.14.0 // indirect
)
