package webhookapi

// The inputs of the operations, with the placeholders wire.go fills:
// {tenant} (workspace, organization), {scope} and {scope.noun} and
// {scope.all} (the optional scope field), {subject} and {subject.noun}
// (the system events' subject filter), {events} and {prefix} (the event
// catalog), {items} (what a list holds). The page bounds are restkit's
// (cursor: 1–200, default 50; numbered: 1–100, default 25).

type pageIn struct {
	Limit   int    `json:"limit,omitempty" in:"query" minimum:"1" maximum:"200" wire:"cursor" jsonschema:"How many {items} per page (1-200, default 50)."`
	Cursor  string `json:"cursor,omitempty" in:"query" wire:"cursor" jsonschema:"The meta.next_cursor of the previous page."`
	Page    int    `json:"page,omitempty" in:"query" minimum:"1" wire:"numbered" jsonschema:"The page to show, from 1 (default 1)."`
	PerPage int    `json:"per_page,omitempty" in:"query" minimum:"1" maximum:"100" wire:"numbered" jsonschema:"How many {items} per page (1-100, default 25)."`
}

type listIn struct {
	Status string `json:"status,omitempty" in:"query" enum:"active,inactive" jsonschema:"Only webhooks with this status."`
	Scope  string `json:"{scope},omitempty" in:"query" wire:"scope" jsonschema:"Only webhooks scoped to this {scope.noun} (its id or external_id)."`
	pageIn
}

type idIn struct {
	ID string `json:"id" in:"path" jsonschema:"The webhook's id or external_id."`
}

// credentialsIn are the write-only credentials of a webhook's target;
// which are required depends on auth.
type credentialsIn struct {
	Username    *string `json:"username,omitempty" maxLength:"255" jsonschema:"auth basic: the user name (required with basic; write-only)."`
	Password    *string `json:"password,omitempty" maxLength:"1024" jsonschema:"auth basic: the password (required with basic; write-only)."`
	Token       *string `json:"token,omitempty" maxLength:"4096" jsonschema:"auth bearer: the token sent as Authorization: Bearer (required with bearer; write-only)."`
	HeaderName  *string `json:"header_name,omitempty" maxLength:"255" jsonschema:"auth header: the name of the header sent with every delivery (required with header)."`
	HeaderValue *string `json:"header_value,omitempty" maxLength:"4096" jsonschema:"auth header: the value of that header (required with header; write-only)."`
}

func (c credentialsIn) sent() bool {
	return c.Username != nil || c.Password != nil || c.Token != nil || c.HeaderName != nil || c.HeaderValue != nil
}

type createIn struct {
	ExternalID       string   `json:"external_id,omitempty" minLength:"1" maxLength:"255" jsonschema:"Your own id for the webhook (default: its generated id); unique among the {tenant}'s live webhooks."`
	Label            string   `json:"label" minLength:"1" maxLength:"255" jsonschema:"A name for people."`
	URL              string   `json:"url" minLength:"1" maxLength:"2048" jsonschema:"Where deliveries are POSTed: an absolute http or https URL."`
	Scope            string   `json:"{scope},omitempty" wire:"scope" jsonschema:"Scope the webhook to one {scope.noun} (its id or external_id): it then receives only that {scope.noun}'s events. Default: {scope.all}."`
	Auth             string   `json:"auth,omitempty" enum:"none,basic,bearer,header" jsonschema:"How deliveries authenticate to the target (default none); basic needs username and password, bearer needs token, header needs header_name and header_value."`
	SubscribedEvents []string `json:"subscribed_events" jsonschema:"The events to deliver: slugs ({events}), \"*\" for all, or \"prefix.*\" ({prefix})."`
	Status           string   `json:"status,omitempty" enum:"active,inactive" jsonschema:"active (default) receives events; inactive receives none."`
	credentialsIn
}

type updateIn struct {
	ID               string   `json:"id" in:"path" jsonschema:"The webhook's id or external_id."`
	Label            *string  `json:"label,omitempty" minLength:"1" maxLength:"255" jsonschema:"A name for people."`
	URL              *string  `json:"url,omitempty" minLength:"1" maxLength:"2048" jsonschema:"Where deliveries are POSTed: an absolute http or https URL."`
	Scope            *string  `json:"{scope},omitempty" wire:"scope" jsonschema:"Scope the webhook to one {scope.noun} (its id or external_id); an empty string removes the scope ({scope.all})."`
	Auth             *string  `json:"auth,omitempty" enum:"none,basic,bearer,header" jsonschema:"How deliveries authenticate; changing it needs the new kind's credentials."`
	SubscribedEvents []string `json:"subscribed_events,omitempty" jsonschema:"Replaces the subscribed events: slugs, \"*\" or \"prefix.*\"."`
	Status           *string  `json:"status,omitempty" enum:"active,inactive" jsonschema:"active receives events; inactive receives none."`
	credentialsIn
}

type listDeliveriesIn struct {
	ID     string `json:"id" in:"path" jsonschema:"The webhook's id or external_id."`
	Status string `json:"status,omitempty" in:"query" enum:"pending,success,failed" jsonschema:"Only deliveries with this status."`
	pageIn
}

type deliveryIDIn struct {
	ID         string `json:"id" in:"path" jsonschema:"The webhook's id or external_id."`
	DeliveryID string `json:"delivery_id" in:"path" jsonschema:"The delivery's id."`
}

type listEventsIn struct {
	Slug    string `json:"slug,omitempty" in:"query" jsonschema:"Only events of this slug ({events})."`
	Subject string `json:"{subject},omitempty" in:"query" wire:"subject" jsonschema:"Only events about this {subject.noun}."`
	Scope   string `json:"{scope},omitempty" in:"query" wire:"scope" jsonschema:"Only events of this {scope.noun} (its id or external_id)."`
	pageIn
}

type eventIDIn struct {
	ID string `json:"id" in:"path" jsonschema:"The event's id."`
}
