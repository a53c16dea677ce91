package dunning

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/mcp"
	"github.com/kobana/kobana-mcp/mcp/restbridge"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/productkit/restkit"
)

// The overdue_portfolio_review prompt (declared with the others in
// prompts.go): the overdue charges by aging bucket, counted and summed on
// the server.

// Aging buckets of the portfolio review, in days late (days since the due
// date, as the charges' days_late counts them); the last one is open.
var agingBuckets = []struct{ from, to int }{{1, 30}, {31, 60}, {61, 90}, {91, 180}, {181, 0}}

// reviewPages bounds how many pages of reviewPerPage charges the portfolio
// review reads per bucket to sum its amounts: a bucket with more charges is
// summed over its largest ones, and the prompt says so. Variables so a
// test can reach the bound with a few charges.
var reviewPages, reviewPerPage = 10, 100

// bucketSummary is one aging bucket as the server counted and summed it.
type bucketSummary struct {
	DaysLate string      `json:"days_late"`
	DueFrom  *string     `json:"due_from"`
	DueTo    string      `json:"due_to"`
	Charges  int         `json:"charges"`
	Counted  int         `json:"charges_summed"`
	Open     money.Cents `json:"open_amount"`
	Updated  money.Cents `json:"updated_amount"`
	Complete bool        `json:"complete"`
	Note     string      `json:"note,omitempty"`
}

// portfolioReview renders overdue_portfolio_review: for each aging bucket
// the count is the listing's meta.total and the amounts are summed here,
// on the server, in cents, from the charges' own open_amount and
// updated_amount (the model is told not to add anything up again).
func portfolioReview(ctx context.Context, b *restbridge.Bridge, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	minDays, minAmount, err := reviewArguments(req.Arguments)
	if err != nil {
		return nil, err
	}
	who, err := readMe(ctx, b, &req.Request)
	if err != nil {
		return nil, err
	}
	var buckets []*bucketSummary
	var total struct {
		Charges int         `json:"charges"`
		Open    money.Cents `json:"open_amount"`
		Updated money.Cents `json:"updated_amount"`
		Summed  int         `json:"charges_summed"`
	}
	var largest []listedCharge
	for _, ab := range agingBuckets {
		from, to := max(ab.from, minDays), ab.to
		if to != 0 && to < from {
			continue
		}
		bs := newBucketSummary(who.Today, from, to)
		if err := sumBucket(ctx, b, &req.Request, bs, minAmount, &largest); err != nil {
			return nil, err
		}
		total.Charges += bs.Charges
		total.Summed += bs.Counted
		total.Open += bs.Open
		total.Updated += bs.Updated
		buckets = append(buckets, bs)
	}
	filters := map[string]any{"status": "overdue", "days_overdue_min": minDays}
	if minAmount > 0 {
		filters["min_amount"] = minAmount
	}
	summary := map[string]any{
		"today":               who.Today,
		"timezone":            who.Settings.Timezone,
		"filters":             filters,
		"buckets":             buckets,
		"total":               total,
		"organization_counts": who.Counts,
		"largest_charges":     restkit.OrEmpty(largest),
	}
	data, err := json.MarshalIndent(summary, "", "  ")
	if err != nil {
		return nil, err
	}
	text := "Review the overdue portfolio of this Kobana Dunning organization and tell the user where to act first.\n\n" +
		"The figures below were computed by the server: in each aging bucket (days since the due date, in the organization's timezone) `charges` is the listing's meta.total, " +
		"`charges_summed` how many of them reach the minimum amount, and `open_amount` and `updated_amount` (open amount plus fine and interest for today) are their sums in BRL; `total` adds the buckets up and `organization_counts` are dunning_me's counts. " +
		"Quote these numbers as they are: never add, multiply or re-derive amounts yourself, and where a bucket is not `complete` say that its sums cover only its largest charges rather than estimating the rest. " +
		"If you need another figure, ask the server for it (dunning_charges_list with status=overdue, due_from and due_to gives a count in meta.total; dunning_charges_get gives one charge's amounts).\n\n" +
		"Then: name the buckets that hold most of the money and the largest debts, suggest which debtors to contact or which collection plan to enroll them in (dunning_plans_list; enrolling with dunning_charges_enroll is destructive, it starts contacting the debtor, and is confirmed by the user), and which old debts to consider writing off (dunning_charges_cancel with write_off, destructive, confirmed). Do not run any of them without the user's go-ahead.\n\n" +
		ledger.UntrustedNotice + "\n\n" + string(data)
	return restkit.UserPrompt("Overdue portfolio by aging bucket", text), nil
}

// reviewArguments reads overdue_portfolio_review's arguments: the
// fewest days late (default 1) and the minimum amount (default none).
func reviewArguments(args map[string]string) (int, money.Cents, error) {
	minDays := 1
	if v := strings.TrimSpace(args["days_overdue_min"]); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 3650 {
			return 0, 0, mcp.InvalidParams("days_overdue_min must be a whole number of days from 1 to 3650")
		}
		minDays = n
	}
	var minAmount money.Cents
	if v := strings.TrimSpace(args["min_amount"]); v != "" {
		f, err := strconv.ParseFloat(strings.Replace(v, ",", ".", 1), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return 0, 0, mcp.InvalidParams("min_amount must be an amount in BRL such as 1500.00")
		}
		if minAmount, err = money.FromFloat(f); err != nil {
			return 0, 0, mcp.InvalidParams("min_amount: %v", err)
		}
	}
	return minDays, minAmount, nil
}

// newBucketSummary is the empty bucket of charges from to to days late
// on today (to 0: open-ended), with its due-date range.
func newBucketSummary(today bankcalendar.Date, from, to int) *bucketSummary {
	bs := &bucketSummary{DueTo: today.AddDays(-from).String(), Complete: true}
	if to == 0 {
		bs.DaysLate = fmt.Sprintf("%d or more", from)
	} else {
		bs.DaysLate = fmt.Sprintf("%d–%d", from, to)
		d := today.AddDays(-to).String()
		bs.DueFrom = &d
	}
	return bs
}

// sumBucket counts bs's overdue charges (the listing's meta.total) and
// sums those of at least minAmount, largest first, over at most
// reviewPages pages, keeping the ten largest seen in largest.
func sumBucket(ctx context.Context, b *restbridge.Bridge, req *mcp.Request, bs *bucketSummary, minAmount money.Cents, largest *[]listedCharge) error {
	q := url.Values{"status": {"overdue"}, "due_to": {bs.DueTo}, "sort_by": {"amount"}, "sort_order": {"desc"}, "per_page": {strconv.Itoa(reviewPerPage)}}
	if bs.DueFrom != nil {
		q.Set("due_from", *bs.DueFrom)
	}
	for page := 1; ; page++ {
		q.Set("page", strconv.Itoa(page))
		var doc struct {
			Data []listedCharge `json:"data"`
			Meta listMeta       `json:"meta"`
		}
		if err := restkit.GetJSON(ctx, b, req, ledger.APIBase+"/charges", q, &doc); err != nil {
			return err
		}
		if page == 1 {
			bs.Charges = doc.Meta.Total
		}
		for _, c := range doc.Data {
			if c.Amount < minAmount {
				// Sorted by amount, largest first: nothing after this
				// one reaches the minimum.
				return nil
			}
			bs.Counted++
			bs.Open += c.OpenAmount
			bs.Updated += c.UpdatedAmount
			*largest = keepLargest(*largest, c, 10)
		}
		if page >= doc.Meta.TotalPages || len(doc.Data) == 0 {
			return nil
		}
		if page >= reviewPages {
			bs.Complete = false
			bs.Note = fmt.Sprintf("only the %d largest charges of this bucket are summed", bs.Counted)
			return nil
		}
	}
}

// keepLargest inserts c into top, the n charges of largest updated amount
// seen so far (largest first).
func keepLargest(top []listedCharge, c listedCharge, n int) []listedCharge {
	i := len(top)
	for i > 0 && top[i-1].UpdatedAmount < c.UpdatedAmount {
		i--
	}
	if i >= n {
		return top
	}
	top = append(top, listedCharge{})
	copy(top[i+1:], top[i:])
	top[i] = c
	if len(top) > n {
		top = top[:n]
	}
	return top
}
