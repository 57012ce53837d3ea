package main

import (
	"context"
	"errors"
)

// runServe is built under issue 9; until then it says so instead of pretending.
func runServe(_ context.Context, _ *cli, _ []string) error {
	return errors.New("'serve' is not built yet (issue 9)")
}
