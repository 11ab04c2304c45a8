package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand"
	"time"

	"github.com/redis-go/go-redis/v9"
	"golang.org/x/sync/singleflight"
)

func NewClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:         addr,
		DialTimeout:  500 * time.Millisecond,
		ReadTimeout:  100 * time.Millisecond,
		WriteTimeout: 100 * time.Millisecond,
		PoolSize:     32,
	})
}

type Cache[T any] struct {
	rdb    *redis.Client
	prefix string
	ttl    time.Duration
	group  singleflight.Group
}

func New[T any](rdb *redis.Client, prefix string, ttl time.Duration) *Cache[T] {
	return &Cache[T]{rdb: rdb, prefix: "v1:" + prefix, ttl: ttl}
}

func (c *Cache[T]) key(k string) string { return fmt.Sprintf("%s:%s", c.prefix, k) }

func (c *Cache[T]) jitter() time.Duration {
	return c.ttl + time.Duration((rand.Float64()*0.2-0.1)*float64(c.ttl))
}

func (c *Cache[T]) GetOrLoad(ctx context.Context, k string, load func(context.Context) (T, error)) (T, error) {
	var zero T
	raw, err := c.rdb.Get(ctx, c.key(k)).Bytes()
	if err == nil {
		var v T
		if json.Unmarshal(raw, &v) == nil {
			return v, nil
		}
	} else if !errors.Is(err, redis.Nil) {
		slog.Warn("cache get failed", "key", k, "err", err)
	}
	v, err, _ := c.group.Do(k, func() (any, error) {
		val, err := load(ctx)
		if err != nil {
			return zero, err
		}
		if b, err := json.Marshal(val); err == nil {
			if err := c.rdb.Set(ctx, c.key(k), b, c.jitter()).Err(); err != nil {
				slog.Warn("cache set failed", "key", k, "err", err)
			}
		}
		return val, nil
	})
	if err != nil {
		return zero, err
	}
	return v.(T), nil
}
