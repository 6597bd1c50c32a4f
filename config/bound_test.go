package config_test

import (
	"testing"

	"github.com/radish-kv/radish/config"
	"github.com/radish-kv/radish/router"
)

// TestMaxShardsIsCursorBound: the shards parameter allows no more shards
// than a SCAN cursor can name.
func TestMaxShardsIsCursorBound(t *testing.T) {
	if config.MaxShards != router.MaxShards {
		t.Fatalf("config.MaxShards = %d, router.MaxShards = %d", config.MaxShards, router.MaxShards)
	}
	last := router.PackCursor(config.MaxShards-1, 1)
	if sh, local, ok := router.UnpackCursor(last, config.MaxShards); sh != config.MaxShards-1 || local != 1 || !ok {
		t.Errorf("cursor of the last shard unpacks to %d %d %v", sh, local, ok)
	}
}
