package main

import (
	"context"
	"errors"
)

// runAsk is built under issue 8; until then it says so instead of pretending.
func runAsk(_ context.Context, _ *cli, _ []string) error {
	return errors.New("'ask' is not built yet (issue 8)")
}
