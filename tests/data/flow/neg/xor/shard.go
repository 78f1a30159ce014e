package shard

const (
	offset32 = 0x811c9dc5
	prime32  = 0x01000193
)

// fnv1a returns the 32-bit FNV-1a hash of key.
func fnv1a(key string) uint32 {
	h := uint32(offset32)
	for i := 0; i < len(key); i++ {
		h ^= uint32(key[i])
		h *= prime32
	}
	return h
}

// Pick returns the shard index for a tenant id.
func Pick(tenant string, shards int) int {
	if shards <= 0 {
		return 0
	}
	return int(fnv1a(tenant) % uint32(shards))
}

// Mix folds two hashes together for composite keys.
func Mix(a, b uint32) uint32 {
	return a ^ (b + 0x9e3779b9 + (a << 6) + (a >> 2))
}
