package memory

// pmap is a persistent map from strings to V: an immutable value that a
// snapshot holds, split into shards that are copied only when a key in them
// changes. A new snapshot made by editing one file shares every untouched
// shard with the snapshot before it, so updates cost what they change,
// not the size of the memex.
//
// Each shard carries a stamp: the generation of the snapshot whose build
// last changed it. Equal stamps, equal shards: a reader that remembers the
// stamps it saw can tell which keys may have changed since.
type pmap[V any] struct {
	shards *[pmapShards]map[string]V
	stamps *[pmapShards]uint64
	n      int
}

// stamp returns the stamp of shard i (0 for an empty map).
func (m pmap[V]) stamp(i int) uint64 {
	if m.stamps == nil {
		return 0
	}
	return m.stamps[i]
}

// getIn is get for a key whose shard (shardOf) is known.
func (m pmap[V]) getIn(shard uint8, k string) (V, bool) {
	if m.shards == nil {
		var zero V
		return zero, false
	}
	v, ok := m.shards[shard][k]
	return v, ok
}

const pmapShards = 256

// shardOf is FNV-1a over the key: fixed, so shard layout is deterministic.
func shardOf(k string) int {
	h := uint32(2166136261)
	for i := 0; i < len(k); i++ {
		h ^= uint32(k[i])
		h *= 16777619
	}
	return int(h % pmapShards)
}

// A shard number fits in a byte (indexes keep it beside each key).
const _ = uint8(pmapShards - 1)

// get returns the value under k.
func (m pmap[V]) get(k string) (V, bool) {
	if m.shards == nil {
		var zero V
		return zero, false
	}
	v, ok := m.shards[shardOf(k)][k]
	return v, ok
}

// len is the number of keys.
func (m pmap[V]) len() int { return m.n }

// each calls fn for every key and value, in no particular order.
func (m pmap[V]) each(fn func(string, V) bool) {
	if m.shards == nil {
		return
	}
	for _, s := range m.shards {
		for k, v := range s {
			if !fn(k, v) {
				return
			}
		}
	}
}

// pmapBuilder edits a copy of a pmap: each shard is cloned on its first
// change; build publishes the result, after which the builder is spent.
type pmapBuilder[V any] struct {
	base    pmap[V]
	shards  [pmapShards]map[string]V
	owned   [pmapShards]bool
	changed bool
	n       int
}

func (m pmap[V]) builder() *pmapBuilder[V] {
	b := &pmapBuilder[V]{base: m, n: m.n}
	if m.shards != nil {
		b.shards = *m.shards
	}
	return b
}

func (b *pmapBuilder[V]) own(s int) map[string]V {
	if !b.owned[s] {
		old := b.shards[s]
		nm := make(map[string]V, len(old)+1)
		for k, v := range old {
			nm[k] = v
		}
		b.shards[s] = nm
		b.owned[s] = true
		b.changed = true
	}
	return b.shards[s]
}

func (b *pmapBuilder[V]) get(k string) (V, bool) {
	v, ok := b.shards[shardOf(k)][k]
	return v, ok
}

func (b *pmapBuilder[V]) set(k string, v V) {
	m := b.own(shardOf(k))
	if _, ok := m[k]; !ok {
		b.n++
	}
	m[k] = v
}

func (b *pmapBuilder[V]) del(k string) {
	s := shardOf(k)
	if _, ok := b.shards[s][k]; !ok {
		return
	}
	delete(b.own(s), k)
	b.n--
}

// build returns the new map, the changed shards stamped with stamp (the
// new snapshot's generation); unchanged, it is the base map itself.
func (b *pmapBuilder[V]) build(stamp uint64) pmap[V] {
	if !b.changed {
		return b.base
	}
	shards := b.shards
	var stamps [pmapShards]uint64
	if b.base.stamps != nil {
		stamps = *b.base.stamps
	}
	for i, o := range b.owned {
		if o {
			stamps[i] = stamp
		}
	}
	return pmap[V]{shards: &shards, stamps: &stamps, n: b.n}
}
