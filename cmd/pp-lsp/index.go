package main

import (
	"context"
	"errors"
)

// runIndex is built under issue 3; until then it says so instead of pretending.
func runIndex(_ context.Context, _ *cli, _ []string) error {
	return errors.New("'index' is not built yet (issue 3)")
}
