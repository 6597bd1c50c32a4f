// Package engine is one shard's keyspace: numbered databases of keys in
// adaptive radix trees whose nodes and values live in the shard's off-heap
// slab (engine/slab), with Redis's value semantics, expiry and glob.
//
// The engine is a pure state machine. It does no I/O, starts no goroutines,
// takes no locks and never reads a clock: every call that needs the time is
// handed `now` (unix milliseconds). A Store and everything reached from it
// belong to one goroutine.
//
// # Nouns
//
//   - Store: a slab plus N databases sharing it, and the few Go-heap
//     buffers the engine needs (integer formatting, APPEND scratch, per-DB
//     cursor rings). UsedMemory is the sum of live slab blocks and those.
//   - DB: one database: a tree root, its key and TTL counts, a SCAN cursor
//     ring and a reusable walker. *DB values are stable; SwapDB swaps
//     contents.
//   - Handle: a 32-bit slab handle (class, 1 generation bit, slot). Trees
//     link blocks only by handles: no Go pointer is stored in slab memory.
//   - Node: an inner tree node of kind N10/N16/N48/N256 (fan-out 10, 16, 48,
//     256), a whole number of cache lines (64, 128, 512, 1088 B). It holds a
//     compressed path (prefix; the first 2/36/52/52 bytes stored inline),
//     an optional end leaf (the key that ends exactly at the node), and its
//     children by next byte. See node.go for the layout.
//   - Leaf: one block per key: flags (type, encoding, TTL bit), the whole
//     key, the 8-byte expiry only when the key has a TTL, and the value:
//     an integer (zigzag varint), an inline string (<= 256 bytes) or the
//     handle of an external value block. See leaf.go.
//   - External value: a block holding a 0 byte and a long string.
//     EditString (SETBIT, BITFIELD, a dense HyperLogLog) changes a string
//     in place, growing it within its block's room as APPEND does; BitOp
//     builds BITOP's result straight into the new value.
//   - Object: the value of a non-string key (object.go). The leaf holds the
//     Handle of its root block and, in its encoding bits, the object
//     encoding (listpack, hashtable, intset, skiplist, quicklist). All of
//     an object lives in slab blocks that start with a 0 byte and hold no
//     Go pointer: compact encodings are one packed block (entries back to
//     back) or an intset block; large hashes and sets are an
//     open-addressing table of entry-block handles (object.go). So every
//     byte of every value is counted by UsedMemory and freed by Delete and
//     Flush. Each type registers an objType (free, export, import) and takes
//     its thresholds from Store.Limits.
//   - Quicklist: a list (quicklist.go): a header block and a doubly linked
//     chain of node blocks, each a packed run of entries of at most
//     list-max-listpack-size; entries carry their length at both ends so
//     both ends of a node can be walked. Under list-compress-depth the
//     inner nodes are LZF-compressed blocks, made plain for any access to
//     their entries (qlcompress.go). A node holds at least one entry
//     however long, so a large element needs no node kind of its own:
//     Redis's plain nodes (elements of at least DEBUG
//     QUICKLIST-PACKED-THRESHOLD) exist only in the RDB form, which
//     persistence/rdb splits where Redis 7.0 splits a list built by tail
//     pushes; a list Redis built otherwise (LPUSH, LINSERT, LSET into a
//     packed node) has the same contents and plain elements there but
//     may have other node boundaries, as any list's may.
//   - Skiplist: the large sorted set (skiplist.go): Redis's skiplist with
//     spans for O(log n) rank and range, whose nodes are the entry blocks
//     of the object hash table, so ZSCORE is O(1) and a member is stored
//     once. Small sorted sets are one packed block ordered by score.
//   - Memory usage: a key's leaf block plus every block of its value, at
//     block size (DB.MemoryUsage, memory.go; each objType's size walks the
//     blocks its free frees).
//   - Stream: a root block (length, last/first/largest-deleted IDs,
//     entries added), an index block of (master ID, node) sorted by ID and
//     node blocks of packed entries, each entry's ID a delta from its
//     node's master and its fields omitted when they are the master's;
//     nodes close where Redis's listpacks do (stream-node-max-bytes and
//     -entries), so approximate trims match Redis's (stream.go).
//   - Consumer group: a stream's groups (last delivered ID, entries-read,
//     a PEL of pending entries ordered by ID, consumers by name with their
//     own PELs) live in Go memory, in the Store's map keyed by the
//     stream's root block, dropped when the stream is freed
//     (streamgroup.go).
//   - Lazy-free queue: values UNLINK took out and trees FLUSHDB ASYNC
//     detached, freed a bounded number of blocks per LazyFreeStep
//     (lazyfree.go); they belong to no database.
//   - Record: a key's value in a self-contained form (Export/Import). For
//     a hash: uvarint field count, then field and value as (uvarint length,
//     bytes) each; for a set: uvarint count, then the members the same way;
//     lists and sorted sets likewise (list.go, zset.go); a stream's keeps
//     its nodes, deleted entries included, then its groups (stream.go,
//     streamgroup.go). A snapshot exports a database's records in one
//     walk (ExportAfter) and a load in key order links each new key in
//     without a lookup first (ImportNew) (export.go).
//   - Tag: the slab's per-block bit; set exactly on leaves with a TTL, so
//     that ActiveExpire samples them through the slab.
//   - Access clock: the last 3 bytes of every leaf block: Redis's 24-bit
//     LRU clock, or LFU minutes and counter under an LFU policy (evict.go).
//   - Expiry wheel: every leaf given a TTL is filed by deadline in a
//     hierarchical timing wheel of handle chunks in the slab, which
//     ActiveExpireCycle walks with bounded work (expire.go).
//   - Eviction pool: Redis's 16 best eviction candidates, held as slab
//     Refs (evict.go).
//   - glob: a Redis pattern compiled into a token NFA; its state after a
//     path tells whether any key below can still match (pruning). Match is
//     the direct port of Redis's stringmatchlen and the definition.
//   - Cursor: a SCAN position: the last examined key's leaf (slot, class,
//     15 generation bits) and a slot of the DB's ring of its last 1024
//     cursors, which keeps a copy of that key (see Scan for resolution).
//
// # Invariants
//
//   - Keys are unique per DB and in-order traversal yields them sorted
//     bytewise.
//   - Every inner node has at least two entries (children + end leaf); a
//     node left with one is replaced by it (merging compressed paths). A
//     node is of the smallest kind that holds its children, up to
//     hysteresis (N16 shrinks at 8 children, N48 at 12, N256 at 40).
//   - A node's inline prefix equals the corresponding bytes of every key
//     below it; prefix bytes beyond the inline part are read from the
//     node's minimum leaf.
//   - A leaf's block is of exactly the class its encoded size needs: values
//     are rewritten in place only when the size class stays the same, so
//     SET of an existing key allocates nothing.
//   - A leaf is tagged iff it carries a TTL; Store.ttl[c] and Store.leaves[c]
//     count tagged leaves and leaves per slab class; DB.keys and DB.expires
//     count the DB's leaves and TTL leaves (expired ones included until
//     deleted).
//   - After every key is deleted and the lazy-free queue is empty, the slab
//     holds no live block (the wheel frees its chunks when the last TTL
//     leaf goes).
//   - Every leaf with a TTL has a wheel entry in the bucket of its current
//     deadline; entries of deleted or moved leaves are stale and dropped.
//   - No hash or set is empty: the operation that removes its last element
//     deletes the key (as Redis does).
//   - Every exported call that changes a key's data counts it in Dirty
//     (expiry and eviction excepted: the hooks report those) and, while
//     the Store tracks or notes writes (TrackWrites, NoteWrites), notes
//     the key, so that Wrote and Noted name every key a command changed
//     (dirty_test.go checks all three).
//
// # What it never does
//
// It never blocks, never allocates on the Go heap per key (set algebra,
// SPOP/SRANDMEMBER/HRANDFIELD distinct picks use short-lived per-call
// buffers; no value lives on the Go heap), and never
// returns memory a caller may keep: every returned []byte is borrowed and
// its doc comment says until when it stays valid (generally: until the next
// call on any DB of the same Store).
package engine
