package memory

// pmap is a persistent map from strings to V: an immutable value that a
// snapshot holds, split into shards that are copied only when a key in them
// changes. A new snapshot made by editing one file shares every untouched
// shard with the snapshot before it, so updates cost what they change,
// not the size of the memex.
type pmap[V any] struct {
	shards *[pmapShards]map[string]V
	n      int
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
	shards [pmapShards]map[string]V
	owned  [pmapShards]bool
	n      int
}

func (m pmap[V]) builder() *pmapBuilder[V] {
	b := &pmapBuilder[V]{n: m.n}
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

func (b *pmapBuilder[V]) build() pmap[V] {
	shards := b.shards
	return pmap[V]{shards: &shards, n: b.n}
}
