package webhookapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// registerDeliveries declares the operations on a webhook's deliveries:
// what was sent, what came back, and sending it again.
func (x *api) registerDeliveries() {
	declare(x, ListDeliveries, rest.Operation{
		Method: "GET", Path: "/webhooks/{id}/deliveries", Tags: []string{"webhooks"},
		Title: "List a webhook's deliveries", Summary: "Lists the deliveries of one webhook, newest first, " + x.paging() + "; filter status (pending, success, failed).",
		Requires: x.read(),
	}, "deliveries", nil, x.listDeliveries)
	declare(x, GetDelivery, rest.Operation{
		Method: "GET", Path: "/webhooks/{id}/deliveries/{delivery_id}", Tags: []string{"webhooks"},
		Title: "Get a delivery", Summary: "Gets one delivery of a webhook: the request sent (headers and body) and the response received in its last attempt, the error, the attempt count and the next retry.",
		Requires: x.read(),
	}, "", nil, x.getDelivery)
	declare(x, Replay, rest.Operation{
		Method: "POST", Path: "/webhooks/{id}/deliveries/{delivery_id}/" + x.o.ReplayVerb, Tags: []string{"webhooks"},
		Title: capital(x.o.ReplayVerb) + " a delivery", Summary: "Sends a delivery's event again to the webhook as it is configured now (URL, auth, secret): a new delivery (replay_of the original), answered 202 while it runs in the background.",
		Description: "Destructive: it sends a request out to the webhook's URL.",
		Requires:    x.manage(),
	}, "", x.describeReplay, x.replay)
}

// getDelivery answers one delivery of a webhook: the request sent and the
// response of its last attempt.
func (x *api) getDelivery(ctx context.Context, in *deliveryIDIn) (*rest.Response, error) {
	_, _, d, err := x.findDelivery(ctx, in, false)
	if err != nil {
		return nil, err
	}
	return rest.OK(map[string]any{"data": showDelivery(d)}), nil
}

// describeReplay is the question a replay asks: the event goes out again
// with the webhook's configuration of now.
func (x *api) describeReplay(ctx context.Context, in *deliveryIDIn) (string, error) {
	_, w, d, err := x.findDelivery(ctx, in, true)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Send the %s event of delivery %s again to webhook '%s' at %s, with the webhook's current configuration?", d.EventSlug, d.ID, w.Label, w.URL), nil
}

// replay sends a delivery's event again as a new delivery, answered 202.
func (x *api) replay(ctx context.Context, in *deliveryIDIn) (*rest.Response, error) {
	t, w, d, err := x.findDelivery(ctx, in, true)
	if err != nil {
		return nil, err
	}
	nd, err := x.svc.Replay(ctx, t.OrgID, t.WorkspaceID, w.ID, d.ID)
	if err != nil {
		return nil, x.error(err)
	}
	return rest.Accepted(map[string]any{"data": showDelivery(nd)}), nil
}

// listDeliveries answers a webhook's deliveries in the product's style.
func (x *api) listDeliveries(ctx context.Context, in *listDeliveriesIn) (*rest.Response, error) {
	t, w, err := x.find(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	if x.o.Lists == restkit.NumberedList {
		page, perPage, offset := restkit.NumberedParams{Page: in.Page, PerPage: in.PerPage}.Window()
		rows, total, err := x.svc.ListDeliveriesNumbered(ctx, t.OrgID, t.WorkspaceID, w.ID, in.Status, offset, perPage)
		if err != nil {
			return nil, x.error(err)
		}
		return restkit.NumberedPage(rows, page, perPage, total, showDelivery), nil
	}
	after, err := restkit.DecodeCursor(in.Cursor)
	if err != nil {
		return nil, err
	}
	limit := restkit.PageLimit(in.Limit)
	if in.Status == "" {
		rows, err := x.svc.ListDeliveries(ctx, t.OrgID, t.WorkspaceID, w.ID, after, limit)
		if err != nil {
			return nil, x.error(err)
		}
		return cursorPage(x, rows, limit, deliveryID, showDelivery), nil
	}
	// The service's keyset listing has every status: keep reading pages
	// until this one is full (or the deliveries end).
	var rows []webhooks.Delivery
	for len(rows) <= limit {
		batch, err := x.svc.ListDeliveries(ctx, t.OrgID, t.WorkspaceID, w.ID, after, restkit.MaxLimit)
		if err != nil {
			return nil, x.error(err)
		}
		for _, d := range batch[:min(len(batch), restkit.MaxLimit)] {
			if d.Status == in.Status && len(rows) <= limit {
				rows = append(rows, d)
			}
		}
		if len(batch) <= restkit.MaxLimit {
			break
		}
		after = batch[restkit.MaxLimit-1].ID
	}
	return cursorPage(x, rows, limit, deliveryID, showDelivery), nil
}

// findDelivery resolves the webhook (active, when the delivery is to be
// sent again) and one of its deliveries; a delivery of another webhook
// (or organization) is 404.
func (x *api) findDelivery(ctx context.Context, in *deliveryIDIn, active bool) (restkit.Tenant, webhooks.Webhook, webhooks.Delivery, error) {
	t, w, err := x.find(ctx, in.ID)
	if err != nil {
		return t, w, webhooks.Delivery{}, err
	}
	d, err := x.svc.GetDelivery(ctx, t.OrgID, t.WorkspaceID, w.ID, in.DeliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return t, w, d, rest.NotFound("delivery")
	}
	if err != nil {
		return t, w, d, x.error(err)
	}
	if active && w.Status != webhooks.StatusActive {
		return t, w, d, x.inactive()
	}
	return t, w, d, nil
}

func deliveryID(d webhooks.Delivery) string { return d.ID }

// showDelivery is a delivery as the API shows it: as captured, with empty
// header maps rather than null.
func showDelivery(d webhooks.Delivery) webhooks.Delivery {
	if d.RequestHeaders == nil {
		d.RequestHeaders = map[string]string{}
	}
	return d
}
