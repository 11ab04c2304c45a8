package cache

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

func TestGetOrLoadCaches(t *testing.T) {
	mr := miniredis.RunT(t)
	c := New[int](NewClient(mr.Addr()), "n", time.Minute)
	calls := 0
	load := func(context.Context) (int, error) { calls++; return 42, nil }
	for i := 0; i < 3; i++ {
		v, err := c.GetOrLoad(context.Background(), "k", load)
		if err != nil || v != 42 {
			t.Fatalf("got %v %v", v, err)
		}
	}
	if calls != 1 {
		t.Fatalf("loader called %d times", calls)
	}
}
