package actuate

// watching reports whether a guard watches.
func (o *OwnWrites) watching() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.watches) > 0
}
