// Package ratelimittest gives tests a real Redis to count in, under a key
// prefix of their own that is deleted after the test, so parallel
// packages, parallel runs and CI reruns never share a counter.
//
// Redis is reached at KOBANA_TEST_REDIS_URL, by default
// redis://127.0.0.1:6379/0. When it does not answer, the test fails under
// CI=true (a CI machine is expected to have it) and is skipped with a
// message elsewhere.
package ratelimittest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisURL is the server tests use when KOBANA_TEST_REDIS_URL is
// unset: the machine's own Redis.
const DefaultRedisURL = "redis://127.0.0.1:6379/0"

// URL is the Redis server tests use.
func URL() string {
	if u := os.Getenv("KOBANA_TEST_REDIS_URL"); u != "" {
		return u
	}
	return DefaultRedisURL
}

// Redis returns the server's URL and a key prefix unique to t, after
// checking the server answers; every key under the prefix is deleted
// when t ends.
func Redis(t testing.TB) (url, prefix string) {
	t.Helper()
	url = URL()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("KOBANA_TEST_REDIS_URL: %v", err)
	}
	client := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		_ = client.Close()
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s does not answer (%v); CI needs it", url, err)
		}
		t.Skipf("Redis at %s does not answer (%v); set KOBANA_TEST_REDIS_URL or start redis-server to run this test", url, err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	prefix = "kobana-test-" + hex.EncodeToString(b)
	t.Cleanup(func() {
		defer client.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, k := range Keys(t, client, prefix) {
			client.Del(ctx, k)
		}
	})
	return url, prefix
}

// Keys lists the keys under prefix.
func Keys(t testing.TB, client *redis.Client, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var keys []string
	iter := client.Scan(ctx, 0, prefix+":*", 100).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Errorf("scanning Redis keys %s:*: %v", prefix, err)
	}
	return keys
}

// Client is a client of the test Redis, closed when t ends.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(URL())
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { _ = c.Close() })
	return c
}
