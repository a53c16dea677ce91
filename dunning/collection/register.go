package collection

import "github.com/kobana/kobana-mcp/rest"

// The collection plans' registration, above every file whose handlers it
// names (plans.go, steps.go, enrollments_api.go, preview.go) and the
// hooks it adds (enrollments.go).

// RegisterCollectionPlans declares the collection plans, their steps, the
// enrollments of charges in them and the preview of a plan for a charge,
// and stops a charge's enrollments when it leaves collection
// (service.whenChargeClosed).
func RegisterCollectionPlans(api *rest.API, s *Service) {
	// A destructive operation runs its writes in s.nonces.WithTx, one
	// transaction with the consumption of its MCP confirmation, so the
	// confirmation is used exactly when the operation commits.
	registerPlans(api, s)
	registerSteps(api, s)
	registerEnrollments(api, s)
	registerPreview(api, s)
	s.WhenChargeClosed(s.stopChargeEnrollments)
	s.WhenDueMoved(s.rescheduleChargeEnrollments)
}
