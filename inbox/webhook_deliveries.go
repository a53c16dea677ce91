package inbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/kobana/kobana-mcp/platform/store"
	"github.com/kobana/kobana-mcp/platform/webhooks"
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

type listDeliveriesIn struct {
	ID     string `json:"id" in:"path" jsonschema:"The webhook's id or external_id."`
	Status string `json:"status,omitempty" in:"query" enum:"pending,success,failed" jsonschema:"Only deliveries with this status."`
	Limit  int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" jsonschema:"How many deliveries per page (1-200, default 50)."`
	Cursor string `json:"cursor,omitempty" in:"query" jsonschema:"The meta.next_cursor of the previous page."`
}

type deliveryIDIn struct {
	ID         string `json:"id" in:"path" jsonschema:"The webhook's id or external_id."`
	DeliveryID string `json:"delivery_id" in:"path" jsonschema:"The delivery's id."`
}

// errWebhookInactive answers a test or a replay to an inactive webhook:
// nothing would be sent.
var errWebhookInactive = rest.Conflict("the webhook is inactive: activate it (webhooks_update status active) to send it events")

// registerWebhookDeliveries declares the operations on a webhook's
// deliveries: what was sent, what came back, and sending it again.
func registerWebhookDeliveries(api *rest.API, s *service) {
	rest.Handle(api, rest.Operation{
		ID: "webhook_deliveries_list", Method: "GET", Path: "/webhooks/{id}/deliveries", Tags: []string{"webhooks"},
		Title: "List a webhook's deliveries", Summary: "Lists the deliveries of one webhook, newest first, with cursor pagination; filter status (pending, success, failed).",
		Requires: webhooksRead, Annotations: restkit.ReadOnly(),
	}, func(ctx context.Context, in *listDeliveriesIn) (*rest.Response, error) {
		sc, w, err := s.findWebhook(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		after, err := restkit.DecodeCursor(in.Cursor)
		if err != nil {
			return nil, err
		}
		limit := restkit.PageLimit(in.Limit)
		if in.Status == "" {
			rows, err := s.hooks.ListDeliveries(ctx, sc.OrgID, sc.WorkspaceID, w.ID, after, limit)
			if err != nil {
				return nil, webhookError(err)
			}
			return restkit.CursorPage(rows, limit, deliveryID, showDelivery), nil
		}
		// The service lists every status: keep reading pages until this
		// one is full (or the deliveries end).
		var rows []webhooks.Delivery
		for len(rows) <= limit {
			batch, err := s.hooks.ListDeliveries(ctx, sc.OrgID, sc.WorkspaceID, w.ID, after, restkit.MaxLimit)
			if err != nil {
				return nil, webhookError(err)
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
		return restkit.CursorPage(rows, limit, deliveryID, showDelivery), nil
	})
	rest.Handle(api, rest.Operation{
		ID: "webhook_deliveries_get", Method: "GET", Path: "/webhooks/{id}/deliveries/{delivery_id}", Tags: []string{"webhooks"},
		Title: "Get a delivery", Summary: "Gets one delivery of a webhook: the request sent (headers and body) and the response received in its last attempt, the error, the attempt count and the next retry.",
		Requires: webhooksRead, Annotations: restkit.ReadOnly(),
	}, func(ctx context.Context, in *deliveryIDIn) (*rest.Response, error) {
		_, _, d, err := s.findDelivery(ctx, in)
		if err != nil {
			return nil, err
		}
		return rest.OK(map[string]any{"data": showDelivery(d)}), nil
	})
	rest.HandleConfirmed(api, rest.Operation{
		ID: "webhook_deliveries_replay", Method: "POST", Path: "/webhooks/{id}/deliveries/{delivery_id}/replay", Tags: []string{"webhooks"},
		Title: "Replay a delivery", Summary: "Sends a delivery's event again to the webhook as it is configured now (URL, auth, secret): a new delivery (replay_of the original), answered 202 while it runs in the background.",
		Description: "Destructive: it sends a request out to the webhook's URL.",
		Requires:    webhooksManage, Annotations: restkit.Destructive(false),
	}, func(ctx context.Context, in *deliveryIDIn) (string, error) {
		_, w, d, err := s.findDelivery(ctx, in)
		if err != nil {
			return "", err
		}
		if w.Status != webhooks.StatusActive {
			return "", errWebhookInactive
		}
		return fmt.Sprintf("Send the %s event of delivery %s again to webhook '%s' at %s, with the webhook's current configuration?", d.EventSlug, d.ID, w.Label, w.URL), nil
	}, func(ctx context.Context, in *deliveryIDIn) (*rest.Response, error) {
		sc, w, d, err := s.findDelivery(ctx, in)
		if err != nil {
			return nil, err
		}
		if w.Status != webhooks.StatusActive {
			return nil, errWebhookInactive
		}
		nd, err := s.hooks.Replay(ctx, sc.OrgID, sc.WorkspaceID, w.ID, d.ID)
		if err != nil {
			return nil, webhookError(err)
		}
		return rest.Accepted(map[string]any{"data": showDelivery(nd)}), nil
	})
}

// findDelivery resolves the webhook and one of its deliveries; a delivery
// of another webhook (or organization) is 404.
func (s *service) findDelivery(ctx context.Context, in *deliveryIDIn) (scope, webhooks.Webhook, webhooks.Delivery, error) {
	sc, w, err := s.findWebhook(ctx, in.ID)
	if err != nil {
		return sc, w, webhooks.Delivery{}, err
	}
	d, err := s.hooks.GetDelivery(ctx, sc.OrgID, sc.WorkspaceID, w.ID, in.DeliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return sc, w, d, rest.NotFound("delivery")
	}
	if err != nil {
		return sc, w, d, webhookError(err)
	}
	return sc, w, d, nil
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
