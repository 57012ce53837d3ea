package main

import (
	"context"
	"errors"
)

// runStdio is built under issue 5; until then it says so instead of pretending.
func runStdio(_ context.Context, _ *cli, _ []string) error {
	return errors.New("'stdio' is not built yet (issue 5)")
}
