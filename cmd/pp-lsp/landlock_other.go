//go:build !linux

package main

import "errors"

// landlockABI: Landlock is Linux's.
func landlockABI() (int, error) { return 0, errors.New("Landlock is a Linux feature") }
