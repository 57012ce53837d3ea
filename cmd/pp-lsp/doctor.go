package main

import (
	"context"
	"errors"
)

// runDoctor is built under issue 7; until then it says so instead of pretending.
func runDoctor(_ context.Context, _ *cli, _ []string) error {
	return errors.New("'doctor' is not built yet (issue 7)")
}
