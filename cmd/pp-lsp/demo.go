package main

import (
	"context"
	"errors"
)

// runDemo is built under issue 8; until then it says so instead of pretending.
func runDemo(_ context.Context, _ *cli, _ []string) error {
	return errors.New("'demo' is not built yet (issue 8)")
}
