package rest

import "net/http"

// Response is what an operation handler answers on success.
type Response struct {
	Status int
	Body   any
	Header http.Header
}

// OK answers 200 with body.
func OK(body any) *Response { return &Response{Status: http.StatusOK, Body: body} }

// Created answers 201 with body.
func Created(body any) *Response { return &Response{Status: http.StatusCreated, Body: body} }

// Accepted answers 202 with body: the work continues in the background.
func Accepted(body any) *Response { return &Response{Status: http.StatusAccepted, Body: body} }

// NoContent answers 204.
func NoContent() *Response { return &Response{Status: http.StatusNoContent} }
