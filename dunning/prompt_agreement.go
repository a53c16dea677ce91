package dunning

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/kobana/kobana-mcp/dunning/escalation"
	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// defaultOfferMaxInstallments is propose_agreement's max_installments
// when not given.
const defaultOfferMaxInstallments = 6

// proposeAgreement renders propose_agreement: the debtor, their open
// charges and the figures of the proposal, computed here with the same
// arithmetic as dunning_agreements_create (whole cents, the remainder on
// the first installment), so the model quotes figures and never computes
// them.
func proposeAgreement(ctx context.Context, b *restbridge.Bridge, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	id := strings.TrimSpace(req.Arguments["debtor_id"])
	if id == "" {
		return nil, mcp.InvalidParams("debtor_id must not be blank")
	}
	maxPct := 0.0
	if v := strings.TrimSpace(req.Arguments["max_discount_pct"]); v != "" {
		f, err := strconv.ParseFloat(strings.ReplaceAll(v, ",", "."), 64)
		if err != nil || f < 0 || f > 100 {
			return nil, mcp.InvalidParams("max_discount_pct must be a percentage from 0 to 100 (got %q)", v)
		}
		maxPct = f
	}
	maxN := defaultOfferMaxInstallments
	if v := strings.TrimSpace(req.Arguments["max_installments"]); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > escalation.MaxAgreementInstallments {
			return nil, mcp.InvalidParams("max_installments must be a whole number from 1 to %d (got %q)", escalation.MaxAgreementInstallments, v)
		}
		maxN = n
	}
	m, err := readMe(ctx, b, &req.Request)
	if err != nil {
		return nil, err
	}
	// The organization's cap bounds what the prompt may offer.
	if m.Settings.AgreementMaxDiscount < maxPct {
		maxPct = m.Settings.AgreementMaxDiscount
	}
	debtor, debtorID, err := readDebtor(ctx, b, &req.Request, id)
	if err != nil {
		return nil, err
	}
	var open struct {
		Data []listedCharge `json:"data"`
	}
	if err := restkit.GetJSON(ctx, b, &req.Request, ledger.APIBase+"/charges", url.Values{"debtor_id": {debtorID}, "status": {"pending,overdue"}, "per_page": {"50"}}, &open); err != nil {
		return nil, err
	}
	if len(open.Data) == 0 {
		return restkit.UserPrompt("Agreement proposal", "Tell the user this debtor has no pending or overdue charge, so there is nothing to renegotiate.\n\n"+ledger.UntrustedNotice+"\n\nDebtor:\n"+debtor), nil
	}
	var total money.Cents
	ids := make([]string, 0, len(open.Data))
	lines := make([]string, 0, len(open.Data))
	for _, c := range open.Data {
		total += c.UpdatedAmount
		ids = append(ids, c.ID)
		lines = append(lines, fmt.Sprintf("- %s (%s), due %s, %d days late: updated amount %s", c.ID, c.Description, c.DueDate.BR(), c.DaysLate, c.UpdatedAmount))
	}
	pct, err := latefee.PercentFromFloat(maxPct)
	if err != nil {
		return nil, mcp.InvalidParams("max_discount_pct: %v", err)
	}
	discount := escalation.PercentOf(total, pct)
	net := total - discount
	options := []string{}
	seen := map[int]bool{}
	for _, n := range []int{1, 2, 3, maxN} {
		if n > maxN || seen[n] {
			continue
		}
		seen[n] = true
		parts := escalation.SplitCents(net, n)
		options = append(options, fmt.Sprintf("- %d installments: the first %s, then %s each", n, parts[0], parts[len(parts)-1]))
	}
	args, _ := json.Marshal(map[string]any{"debtor_id": debtorID, "charge_ids": ids, "discount_percent": maxPct, "installments": maxN})
	text := "Help the user propose a renegotiation (acordo) to this Kobana Dunning debtor. The server computed every figure below: quote them, never compute or add amounts yourself. " +
		fmt.Sprintf("Their open charges add up to %s today (updated amounts with fine and interest). With a discount of %s (%s) they would pay %s, in one of these ways:\n", total, pct, discount, net) +
		strings.Join(options, "\n") +
		"\n\nShow the user the charges and these options, and ask which one they want (they may choose a smaller discount, a down payment or a due day). " +
		"Only after they agree, call dunning_agreements_create with what they chose — for the largest option: " + string(args) + " — and show the proposal it answers (its installments table is the server's). " +
		"Creating the proposal is destructive and confirmed by the user; accepting it (dunning_agreements_accept) is a separate decision, when the debtor accepts.\n\n" +
		ledger.UntrustedNotice + "\n\nDebtor:\n" + debtor + "\n\nOpen charges:\n" + strings.Join(lines, "\n")
	return restkit.UserPrompt("Agreement proposal", text), nil
}
