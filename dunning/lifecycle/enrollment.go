package lifecycle

// EnrollmentStatus is where a charge's run through a collection plan
// stands.
type EnrollmentStatus string

// Enrollment statuses.
const (
	// EnrollmentActive: the plan's remaining steps will run.
	EnrollmentActive EnrollmentStatus = "active"
	// EnrollmentCompleted: every step ran.
	EnrollmentCompleted EnrollmentStatus = "completed"
	// EnrollmentStopped: ended early (see StopReason).
	EnrollmentStopped EnrollmentStatus = "stopped"
)

// Enrollments is the enrollment transition table:
//
//	active → completed, stopped
//	completed, stopped: final (enrolling again starts a new enrollment)
var Enrollments = newMachine("enrollment",
	[]EnrollmentStatus{EnrollmentActive, EnrollmentCompleted, EnrollmentStopped},
	map[EnrollmentStatus][]EnrollmentStatus{
		EnrollmentActive: {EnrollmentCompleted, EnrollmentStopped},
	})

// CanBecome is Enrollments.Check(s, to).
func (s EnrollmentStatus) CanBecome(to EnrollmentStatus) error { return Enrollments.Check(s, to) }
