// Package tidy holds the checks that keep the code in the shape
// ARCHITECTURE.md draws, in the spirit of rust-analyzer's tidy tests: it has
// no code of its own, only tests. TestLayers reads the layers from
// ARCHITECTURE.md's "layers" block and fails on any import that points up
// or sideways, on a package the block does not place, and on an LSP
// library reached from below the front ends.
package tidy
