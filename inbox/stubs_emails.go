package inbox

import (
	"context"
	"net/http"

	"github.com/kobana/kobana-mcp/rest"
)

// STUB (helper D): emails routes, HTTP intake at POST /intake/messages (or
// under the API), SMTP listener.
func registerEmails(api *rest.API, s *service)   {}
func mountIntake(mux *http.ServeMux, s *service) {}

// start starts the SMTP intake (Product.Start).
func (s *service) start(ctx context.Context) error { return nil }

// shutdown stops the SMTP intake (Product.Shutdown).
func (s *service) shutdown(ctx context.Context) error { return nil }
