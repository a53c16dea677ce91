package inbox

import "github.com/kobana/kobana-mcp/platform/pagetext"

// toolTitles are the Inbox's destructive tools as the approval page names
// them, in both of its languages (productkit.Approvals.ToolTitles); the
// catalog's titles are English, for models. TestApprovalToolTitles keeps
// one for each destructive tool.
var toolTitles = map[string]pagetext.Phrase{
	"agents_delete":             {PT: "Excluir um agente", EN: "Delete an agent"},
	"emails_reprocess":          {PT: "Reprocessar um e-mail", EN: "Reprocess an e-mail"},
	"inboxes_delete":            {PT: "Excluir uma caixa de entrada", EN: "Delete an inbox"},
	"inboxes_recipients_add":    {PT: "Permitir um remetente", EN: "Allow a sender"},
	"inboxes_recipients_remove": {PT: "Remover um remetente permitido", EN: "Remove an allowed sender"},
	"webhook_deliveries_replay": {PT: "Reenviar uma entrega de webhook", EN: "Replay a delivery"},
	"webhooks_delete":           {PT: "Excluir um webhook", EN: "Delete a webhook"},
	"webhooks_rotate_secret":    {PT: "Gerar de novo o segredo de assinatura de um webhook", EN: "Regenerate a webhook's signing secret"},
	"webhooks_test":             {PT: "Enviar um evento de teste a um webhook", EN: "Send a test event to a webhook"},
	"workspaces_delete":         {PT: "Excluir um espaço de trabalho", EN: "Delete a workspace"},
}
