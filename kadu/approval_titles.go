package kadu

import "github.com/kobana/kobana-mcp/platform/pagetext"

// toolTitles are Kadu's destructive tools as the approval page names them,
// in both of its languages (productkit.Approvals.ToolTitles); the
// catalog's titles are English, for models. TestApprovalToolTitles keeps
// one for each destructive tool.
var toolTitles = map[string]pagetext.Phrase{
	"kadu_executions_cancel":         {PT: "Cancelar uma execução", EN: "Cancel an execution"},
	"kadu_executions_continue":       {PT: "Continuar uma execução", EN: "Continue an execution"},
	"kadu_files_delete":              {PT: "Excluir um arquivo", EN: "Delete a file"},
	"kadu_tasks_delete":              {PT: "Excluir uma tarefa", EN: "Delete a task"},
	"kadu_tasks_run":                 {PT: "Executar uma tarefa", EN: "Run a task"},
	"kadu_tasks_set_destinations":    {PT: "Definir para onde vão os resultados de uma tarefa", EN: "Set where a task's results go"},
	"kadu_tasks_set_triggerers":      {PT: "Definir quem pode executar uma tarefa", EN: "Set who may run a task"},
	"kadu_webhook_deliveries_replay": {PT: "Reenviar uma entrega de webhook", EN: "Replay a delivery"},
	"kadu_webhooks_create":           {PT: "Criar um webhook", EN: "Create a webhook"},
	"kadu_webhooks_delete":           {PT: "Excluir um webhook", EN: "Delete a webhook"},
	"kadu_webhooks_rotate_secret":    {PT: "Trocar o segredo de assinatura de um webhook", EN: "Rotate a webhook's signing secret"},
	"kadu_webhooks_test":             {PT: "Enviar um evento de teste a um webhook", EN: "Send a test event to a webhook"},
	"kadu_webhooks_update":           {PT: "Alterar um webhook", EN: "Update a webhook"},
}
