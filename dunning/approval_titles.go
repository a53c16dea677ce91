package dunning

import "github.com/kobana/kobana-mcp/platform/pagetext"

// toolTitles are Dunning's destructive tools as the approval page names
// them, in both of its languages (productkit.Approvals.ToolTitles); the
// catalog's titles are English, for models. TestApprovalToolTitles keeps
// one for each destructive tool.
var toolTitles = map[string]pagetext.Phrase{
	"dunning_agreements_accept":            {PT: "Aceitar um acordo", EN: "Accept an agreement"},
	"dunning_agreements_cancel":            {PT: "Cancelar um acordo", EN: "Cancel an agreement"},
	"dunning_agreements_create":            {PT: "Propor um acordo", EN: "Propose an agreement"},
	"dunning_approvals_approve":            {PT: "Aprovar um passo retido", EN: "Approve a parked step"},
	"dunning_approvals_reject":             {PT: "Rejeitar um passo retido", EN: "Reject a parked step"},
	"dunning_charges_archive":              {PT: "Arquivar uma cobrança", EN: "Archive a charge"},
	"dunning_charges_cancel":               {PT: "Cancelar ou baixar uma cobrança", EN: "Cancel or write off a charge"},
	"dunning_charges_enroll":               {PT: "Incluir uma cobrança em uma régua de cobrança", EN: "Enroll a charge in a collection plan"},
	"dunning_charges_notify":               {PT: "Avisar agora o devedor de uma cobrança", EN: "Notify the debtor of a charge now"},
	"dunning_charges_protest":              {PT: "Protestar uma cobrança em cartório", EN: "Protest a charge at the notary"},
	"dunning_charges_protest_cancel":       {PT: "Cancelar o protesto de uma cobrança", EN: "Cancel a charge's protest"},
	"dunning_charges_remove_credit_report": {PT: "Retirar a negativação de uma cobrança", EN: "Remove a charge's credit report"},
	"dunning_charges_report_credit_bureau": {PT: "Negativar uma cobrança em um birô de crédito", EN: "Report a charge to a credit bureau"},
	"dunning_charges_unenroll":             {PT: "Tirar uma cobrança da régua de cobrança", EN: "Stop a collection plan for a charge"},
	"dunning_charges_waive":                {PT: "Perdoar a multa ou os juros de uma cobrança", EN: "Forgive a charge's fine or interest"},
	"dunning_debtors_archive":              {PT: "Arquivar um devedor", EN: "Archive a debtor"},
	"dunning_debtors_portal_link_reset":    {PT: "Trocar ou revogar o link da página do devedor", EN: "Rotate or revoke a debtor's page link"},
	"dunning_notifications_create":         {PT: "Enviar uma mensagem avulsa a um devedor", EN: "Send an ad hoc message to a debtor"},
	"dunning_notifications_resend":         {PT: "Reenviar uma notificação", EN: "Resend a notification"},
	"dunning_pix_received_assign":          {PT: "Atribuir um Pix recebido a uma cobrança", EN: "Assign a Pix received to a charge"},
	"dunning_pix_received_dismiss":         {PT: "Descartar um Pix recebido", EN: "Dismiss a Pix received"},
	"dunning_pix_webhook_rotate":           {PT: "Criar ou trocar o segredo do webhook Pix", EN: "Create or rotate the Pix webhook's secret"},
	"dunning_plan_steps_delete":            {PT: "Excluir um passo de uma régua de cobrança", EN: "Delete a step of a collection plan"},
	"dunning_plans_archive":                {PT: "Arquivar uma régua de cobrança", EN: "Archive a collection plan"},
	"dunning_plans_delete":                 {PT: "Excluir uma régua de cobrança", EN: "Delete a collection plan"},
	"dunning_webhook_deliveries_retry":     {PT: "Tentar de novo uma entrega de webhook", EN: "Retry a delivery"},
	"dunning_webhooks_delete":              {PT: "Excluir um webhook", EN: "Delete a webhook"},
	"dunning_webhooks_rotate_secret":       {PT: "Trocar o segredo de assinatura de um webhook", EN: "Rotate a webhook's signing secret"},
	"dunning_webhooks_test":                {PT: "Enviar um evento de teste a um webhook", EN: "Send a test event to a webhook"},
}
