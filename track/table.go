package track

// Reader is a client that read a key: its ID and its home shard.
type Reader struct {
	ID   int64
	Home int32
}

// Table is the default mode's tracked keys of one shard and their readers.
// The zero Table is empty and ready.
type Table struct {
	keys  map[string]int32 // key -> index in ents
	ents  []entry
	free  []int32 // indexes of ents no key uses
	items int
	taken []Reader // what Take last returned
}

type entry struct {
	key     string
	readers []Reader
}

// Len is the number of keys tracked.
func (t *Table) Len() int { return len(t.keys) }

// Items is the number of (key, reader) pairs tracked.
func (t *Table) Items() int { return t.items }

// Remember records that r read key. A key new to the table costs its
// string and, the first time an entry is made, the entry; a key held
// already costs a map lookup and a scan of its readers.
func (t *Table) Remember(key []byte, r Reader) {
	if i, ok := t.keys[string(key)]; ok {
		e := &t.ents[i]
		for _, o := range e.readers {
			if o == r {
				return
			}
		}
		e.readers = append(e.readers, r)
		t.items++
		return
	}
	if t.keys == nil {
		t.keys = make(map[string]int32)
	}
	var i int32
	if n := len(t.free); n > 0 {
		i = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		t.ents = append(t.ents, entry{})
		i = int32(len(t.ents) - 1)
	}
	e := &t.ents[i]
	e.key = string(key)
	e.readers = append(e.readers[:0], r)
	t.keys[e.key] = i
	t.items++
}

// Take forgets key and returns its readers (none when it was not
// tracked), valid until the next call on t.
func (t *Table) Take(key []byte) []Reader {
	i, ok := t.keys[string(key)]
	if !ok {
		return nil
	}
	return t.drop(i)
}

// Evict forgets some key and returns it with its readers (valid until the
// next call on t); ok is false when the table is empty. Which key is
// Go's map order: random enough for tracking-table-max-keys, as Redis
// picks a random key.
func (t *Table) Evict() (key string, readers []Reader, ok bool) {
	for _, i := range t.keys {
		key = t.ents[i].key
		return key, t.drop(i), true
	}
	return "", nil, false
}

func (t *Table) drop(i int32) []Reader {
	e := &t.ents[i]
	delete(t.keys, e.key)
	t.items -= len(e.readers)
	// The entry's slice is handed out and its entry reused by the next
	// Remember: swap in the previous Take's slice instead.
	t.taken, e.readers = e.readers, t.taken[:0]
	e.key = ""
	t.free = append(t.free, i)
	return t.taken
}

// Clear forgets every key (FLUSHDB, FLUSHALL), keeping the memory.
func (t *Table) Clear() {
	for _, i := range t.keys {
		e := &t.ents[i]
		e.key = ""
		e.readers = e.readers[:0]
		t.free = append(t.free, i)
	}
	clear(t.keys)
	t.items = 0
}
