package approval

import (
	"context"
	"net/url"

	"github.com/kobana/kobana-mcp/platform/pagetext"
)

// A call that succeeded may only have started something — Kadu's
// kadu_tasks_run answers an execution that is still queued. The page then
// must not say the action is done: it says the call ran, and where the
// work it started stands, reloading itself until that work ends, with
// where to follow it (docs/decisions.md "Approval link", the truthful
// status rule). The product knows what its tools' results start; it tells
// the page through Options.Progress, and this package knows no product.

// WorkState is where the work a call started stands.
type WorkState string

// The states of started work, as the page says them.
const (
	WorkQueued          WorkState = "queued"
	WorkRunning         WorkState = "running"
	WorkWaiting         WorkState = "waiting"
	WorkWaitingInput    WorkState = "waiting_input"
	WorkWaitingApproval WorkState = "waiting_approval"
	// WorkWaitingBudget: paused at a spending limit until a person raises
	// it or approves going past it.
	WorkWaitingBudget WorkState = "waiting_budget"
	WorkSucceeded     WorkState = "succeeded"
	WorkFailed        WorkState = "failed"
	WorkCancelled     WorkState = "cancelled"
)

// Final reports whether the work has ended.
func (s WorkState) Final() bool {
	return s == WorkSucceeded || s == WorkFailed || s == WorkCancelled
}

// label is the catalogue's word for the state.
func (s WorkState) label() pagetext.Key {
	switch s {
	case WorkQueued:
		return pagetext.KeyWorkQueued
	case WorkRunning:
		return pagetext.KeyWorkRunning
	case WorkWaitingInput:
		return pagetext.KeyWorkWaitingInput
	case WorkWaitingApproval:
		return pagetext.KeyWorkWaitingApproval
	case WorkWaitingBudget:
		return pagetext.KeyWorkWaitingBudget
	case WorkSucceeded:
		return pagetext.KeyWorkSucceeded
	case WorkFailed:
		return pagetext.KeyWorkFailed
	case WorkCancelled:
		return pagetext.KeyWorkCancelled
	}
	return pagetext.KeyWorkWaiting
}

// Progress is the work a succeeded call started, as it stands when the
// page is shown (read afresh each time, never the snapshot the call
// answered).
type Progress struct {
	// What names the work, in both languages ("a execução 0193…").
	What pagetext.Phrase
	// State is where it stands.
	State WorkState
	// Note says more, in both languages, when there is more to say (why
	// it failed); empty says nothing.
	Note pagetext.Phrase
	// FollowURL is where to follow it over HTTP (the product's API); only
	// http(s) URLs are shown.
	FollowURL string
	// Resource is its MCP resource URI, for the person's application.
	Resource string
	// PageURL is the product's page for people that follows it (Kadu's
	// execution page); only http(s) URLs are shown.
	PageURL string
}

// ProgressFunc reads what a succeeded approval's call started; nil (with
// no error) when the call's outcome is all there is (Options.Progress).
type ProgressFunc func(ctx context.Context, a *Approval) (*Progress, error)

// progressView is a Progress as the page shows it.
type progressView struct {
	State, Label, What, Note string
	FollowURL, Resource      string
	PageURL                  string
}

func newProgressView(l *pagetext.Printer, pr *Progress) *progressView {
	v := &progressView{
		State: string(pr.State), Label: l.Say(pr.State.label()), What: l.Pick(pr.What), Note: l.Pick(pr.Note),
		Resource: pr.Resource,
	}
	if webURL(pr.FollowURL) {
		v.FollowURL = pr.FollowURL
	}
	if webURL(pr.PageURL) {
		v.PageURL = pr.PageURL
	}
	return v
}

// webURL reports whether s is an absolute http(s) URL.
func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
