package main

import (
	"context"
	"errors"
)

// runGate is built under issue 6; until then it says so instead of pretending.
func runGate(_ context.Context, _ *cli, _ []string) error {
	return errors.New("'gate' is not built yet (issue 6)")
}
