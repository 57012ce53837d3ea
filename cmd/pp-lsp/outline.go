package main

import (
	"context"
	"errors"
)

// runOutline is built under issue 2; until then it says so instead of pretending.
func runOutline(_ context.Context, _ *cli, _ []string) error {
	return errors.New("'outline' is not built yet (issue 2)")
}
