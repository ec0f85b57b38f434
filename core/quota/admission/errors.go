package admission

import "errors"

// ErrUnsupported is wrapped by errors about Kueue features Berth's
// admission does not implement yet; such input is refused, never ignored.
var ErrUnsupported = errors.New("not supported by Berth's admission yet")

// ErrCohortCycle is wrapped when cohorts' parents form a cycle.
var ErrCohortCycle = errors.New("cohort parents form a cycle")
