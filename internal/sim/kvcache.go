package sim

// kvCache is the engine's KV-cache block pool with prefix caching, after
// vLLM v1's KVCacheManager: fixed-size blocks, reference counts, full blocks
// keyed by a hash chained over all tokens before them, and freed blocks kept
// (evictable, least recently freed first) so a later request can reuse them.
type kvCache struct {
	blockSize int
	blocks    []kvBlock
	// free is a doubly linked list of blocks with refcount 0, through
	// kvBlock.prev/next; head is evicted first. -1 ends the list.
	freeHead, freeTail int
	numFree            int
	cached             map[uint64]int32 // block hash -> block id
	caching            bool
}

type kvBlock struct {
	ref        int32
	prev, next int32
	hash       uint64
	hashed     bool
}

func newKVCache(numBlocks, blockSize int, caching bool) *kvCache {
	c := &kvCache{blockSize: blockSize, blocks: make([]kvBlock, numBlocks), freeHead: -1, freeTail: -1, caching: caching}
	if caching {
		c.cached = make(map[uint64]int32)
	}
	for i := range c.blocks {
		c.pushTail(int32(i))
	}
	return c
}

func (c *kvCache) pushTail(id int32) {
	b := &c.blocks[id]
	b.prev, b.next = int32(c.freeTail), -1
	if c.freeTail >= 0 {
		c.blocks[c.freeTail].next = id
	} else {
		c.freeHead = int(id)
	}
	c.freeTail = int(id)
	c.numFree++
}

func (c *kvCache) unlink(id int32) {
	b := &c.blocks[id]
	if b.prev >= 0 {
		c.blocks[b.prev].next = b.next
	} else {
		c.freeHead = int(b.next)
	}
	if b.next >= 0 {
		c.blocks[b.next].prev = b.prev
	} else {
		c.freeTail = int(b.prev)
	}
	b.prev, b.next = -1, -1
	c.numFree--
}

// usage is vLLM's kv_cache_usage_perc: 1 - free/total, where cached blocks
// nobody references count as free.
func (c *kvCache) usage() float64 {
	if len(c.blocks) == 0 {
		return 0
	}
	return 1 - float64(c.numFree)/float64(len(c.blocks))
}

// lookup returns how many leading blocks of hashes are cached.
func (c *kvCache) lookup(hashes []uint64) int {
	if !c.caching {
		return 0
	}
	n := 0
	for _, h := range hashes {
		if _, ok := c.cached[h]; !ok {
			break
		}
		n++
	}
	return n
}

// idleHits counts the cached blocks of hashes that nobody references (they
// sit in the free list until taken).
func (c *kvCache) idleHits(hashes []uint64) int {
	n := 0
	for _, h := range hashes {
		if c.blocks[c.cached[h]].ref == 0 {
			n++
		}
	}
	return n
}

// take references the first n cached blocks of hashes (found by lookup) and
// appends their ids to table.
func (c *kvCache) take(hashes []uint64, n int, table []int32) []int32 {
	for _, h := range hashes[:n] {
		id := c.cached[h]
		b := &c.blocks[id]
		if b.ref == 0 {
			c.unlink(id)
		}
		b.ref++
		table = append(table, id)
	}
	return table
}

// alloc appends n new blocks to table, evicting the least recently freed
// cached blocks; ok is false (and nothing changes) when too few are free.
func (c *kvCache) alloc(n int, table []int32) ([]int32, bool) {
	if n > c.numFree {
		return table, false
	}
	for ; n > 0; n-- {
		id := int32(c.freeHead)
		c.unlink(id)
		b := &c.blocks[id]
		if b.hashed {
			if c.cached[b.hash] == id {
				delete(c.cached, b.hash)
			}
			b.hashed = false
		}
		b.ref = 1
		table = append(table, id)
	}
	return table, true
}

// commit records that block id now holds the full block with hash h, so
// later requests with the same prefix can reuse it.
func (c *kvCache) commit(id int32, h uint64) {
	if !c.caching {
		return
	}
	b := &c.blocks[id]
	if b.hashed {
		return
	}
	if _, dup := c.cached[h]; dup {
		return // another block already holds this prefix
	}
	b.hash, b.hashed = h, true
	c.cached[h] = id
}

// release drops a request's blocks, last block first, so that a prefix's
// tail is evicted before its head.
func (c *kvCache) release(table []int32) {
	for i := len(table) - 1; i >= 0; i-- {
		id := table[i]
		b := &c.blocks[id]
		b.ref--
		if b.ref == 0 {
			if !b.hashed {
				// Uncached blocks are worthless: put them first in line.
				c.pushHead(id)
			} else {
				c.pushTail(id)
			}
		}
	}
}

func (c *kvCache) pushHead(id int32) {
	b := &c.blocks[id]
	b.prev, b.next = -1, int32(c.freeHead)
	if c.freeHead >= 0 {
		c.blocks[c.freeHead].prev = id
	} else {
		c.freeTail = int(id)
	}
	c.freeHead = int(id)
	c.numFree++
}

// reset forgets every cached prefix, like vLLM's BlockPool.reset_prefix_cache:
// it refuses (false, with the number of blocks in use) while any block is
// referenced by a request.
func (c *kvCache) reset() (ok bool, inUse int) {
	for i := range c.blocks {
		if c.blocks[i].ref > 0 {
			inUse++
		}
	}
	if inUse > 0 {
		return false, inUse
	}
	for i := range c.blocks {
		c.blocks[i].hashed = false
	}
	if c.caching {
		clear(c.cached)
	}
	return true, 0
}

// blockHash chains a block's tokens onto its parent's hash (FNV-1a over the
// token ids, then a final mix), like vLLM's hash of (parent, tokens).
func blockHash(parent uint64, tokens []int) uint64 {
	h := parent ^ 0xcbf29ce484222325
	for _, t := range tokens {
		h ^= uint64(t)
		h *= 0x100000001b3
	}
	return mix64(h)
}

// mix64 is SplitMix64's finaliser.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
