package main

import (
	"context"
	"errors"
)

// runPlans is built under issue 8; until then it says so instead of pretending.
func runPlans(_ context.Context, _ *cli, _ []string) error {
	return errors.New("'plans' is not built yet (issue 8)")
}
