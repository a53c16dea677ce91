package kadu

import (
	"time"
	"unicode/utf8"

	"github.com/kobana/kobana-mcp/kadu/records"
	"github.com/kobana/kobana-mcp/kadu/runtime"
	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/pagetext"
	"github.com/kobana/kobana-mcp/productkit/approval"
)

// What the execution page (execution_page.go) and its view
// (execution_view.go) share: its bounds, its words for statuses and
// kinds, and the pages' state.

// ExecutionPagePrefix is where the execution pages live on the listener;
// the built-in sign-in may return under it (productkit.Spec.PagePaths).
const ExecutionPagePrefix = "/executions/"

// pageCut is how many characters of a step's arguments or result, or of
// the execution's output, the page shows before it cuts them.
const pageCut = 300

// pageMaxSteps is how many steps one page shows; a longer execution says
// how many more there are, which its JSON lists.
const pageMaxSteps = 500

// pageReload is how often a page of an execution that has not ended
// reloads itself (a meta refresh, as the approval page: no script).
const pageReload = 2

// executionFinal are the statuses an execution ends in; any other,
// including one this page does not know yet, is still going: the page
// reloads.
var executionFinal = map[string]bool{
	records.ExecSucceeded: true, records.ExecFailed: true, records.ExecCanceled: true,
	records.ExecTimedOut: true, records.ExecCostExceeded: true,
}

// executionLabels are the page's words for the statuses it knows; any
// other shows as "in another state" with its code.
var executionLabels = map[string]pagetext.Phrase{
	records.ExecQueued:          {PT: "Na fila", EN: "Queued"},
	records.ExecRunning:         {PT: "Em execução", EN: "Running"},
	records.ExecWaitingInput:    {PT: "Aguardando uma resposta", EN: "Waiting for an answer"},
	records.ExecWaitingApproval: {PT: "Aguardando uma aprovação", EN: "Waiting for an approval"},
	records.ExecSucceeded:       {PT: "Concluída", EN: "Succeeded"},
	records.ExecFailed:          {PT: "Falhou", EN: "Failed"},
	records.ExecCanceled:        {PT: "Cancelada", EN: "Cancelled"},
	records.ExecTimedOut:        {PT: "Tempo esgotado", EN: "Timed out"},
	records.ExecCostExceeded:    {PT: "Teto de custo atingido", EN: "Cost ceiling reached"},
}

// stepKinds and stepStatuses are the page's words for a step's kind and
// status; an unknown one shows its code.
var (
	stepKinds = map[string]pagetext.Phrase{
		records.StepLLM:      {PT: "Chamada ao modelo", EN: "Model call"},
		records.StepToolCall: {PT: "Chamada de ferramenta", EN: "Tool call"},
		records.StepMessage:  {PT: "Mensagem", EN: "Message"},
	}
	stepStatuses = map[string]pagetext.Phrase{
		"started":             {PT: "Em andamento", EN: "In progress"},
		records.StepSucceeded: {PT: "Concluído", EN: "Succeeded"},
		records.StepFailed:    {PT: "Falhou", EN: "Failed"},
		records.StepUnknown:   {PT: "Resultado desconhecido", EN: "Outcome unknown"},
	}
	approvalStatuses = map[approval.Status]pagetext.Phrase{
		approval.StatusPending:   {PT: "Aguardando decisão", EN: "Waiting for a decision"},
		approval.StatusApproved:  {PT: "Aprovada", EN: "Approved"},
		approval.StatusRunning:   {PT: "Aprovada", EN: "Approved"},
		approval.StatusSucceeded: {PT: "Aprovada", EN: "Approved"},
		approval.StatusFailed:    {PT: "Aprovada", EN: "Approved"},
		approval.StatusCancelled: {PT: "Cancelada", EN: "Cancelled"},
		approval.StatusExpired:   {PT: "Expirou sem decisão", EN: "Expired undecided"},
	}
)

// executionPages serves the execution pages of one listener.
type executionPages struct {
	s      *service
	signIn *server.Server
	loc    *time.Location
}

// cut is s shown on the page: at most pageCut characters, and whether it
// was cut.
func cut(s string) (string, bool) {
	if utf8.RuneCountInString(s) <= pageCut {
		return s, false
	}
	n := 0
	for i := range s {
		if n == pageCut {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// runtimeApprovalOwner is the owner name of the approvals an execution
// asks for itself (kadu/runtime).
const runtimeApprovalOwner = runtime.ApprovalOwner
