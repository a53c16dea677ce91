package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/oauth/server"
	"github.com/kobana/kobana-mcp/platform/httpx"
	"github.com/kobana/kobana-mcp/platform/ratelimit"
)

// limitFlags are serve's settings of rate limits and overload.
type limitFlags struct {
	redisURL, redisPrefix, rates, unauthenticated, maxInFlight *string
	productRates                                               map[string]*string
}

func addLimitFlags(s *settings) limitFlags {
	f := limitFlags{
		redisURL:    s.Add("redis-url", "KOBANA_REDIS_URL", "", "Redis holding the rate-limit counters every replica shares (redis://host:port/db); empty: each process counts in its own memory"),
		redisPrefix: s.Add("redis-prefix", "KOBANA_REDIS_PREFIX", "kobana", "prefix of every Redis key, for deployments sharing one Redis"),
		rates: s.Add("rate-limits", "KOBANA_RATE_LIMITS", ratelimit.DefaultRates.String(),
			"per token (reads, writes) and per organization (org-reads, org-writes) of each product; a rate is COUNT-PERIOD, PERIOD one of S, M, H, D"),
		unauthenticated: s.Add("unauthenticated-limit", "KOBANA_UNAUTHENTICATED_LIMIT", "300-M", "401 answers one client address may cause before its requests get 429 (counted per process)"),
		maxInFlight:     s.Add("max-in-flight", "KOBANA_MAX_IN_FLIGHT", strconv.Itoa(httpx.DefaultMaxInFlight), "requests this process serves at once; past it 503 with Retry-After"),
		productRates:    map[string]*string{},
	}
	for _, p := range products() {
		f.productRates[p.Key] = s.Add(p.Key+"-rate-limits", "KOBANA_"+strings.ToUpper(p.Key)+"_RATE_LIMITS", "",
			"the "+p.Key+" product's changes to --rate-limits (same form, only the keys that differ)")
	}
	return f
}

// limits is what serve builds from limitFlags.
type limits struct {
	store  *ratelimit.Store
	rates  map[string]ratelimit.Rates
	unauth *ratelimit.Unauthenticated
	guard  *httpx.Guard
	logger *slog.Logger
}

// open checks every setting and connects to Redis when one is configured.
func (f limitFlags) open(ctx context.Context, log *slog.Logger) (*limits, error) {
	base, err := ratelimit.ParseRates(*f.rates, ratelimit.DefaultRates)
	if err != nil {
		return nil, fmt.Errorf("--rate-limits: %w", err)
	}
	l := &limits{rates: map[string]ratelimit.Rates{}, logger: log}
	for key, spec := range f.productRates {
		if l.rates[key], err = ratelimit.ParseRates(*spec, base); err != nil {
			return nil, fmt.Errorf("--%s-rate-limits: %w", key, err)
		}
	}
	unauth, err := ratelimit.ParseRate(*f.unauthenticated)
	if err != nil {
		return nil, fmt.Errorf("--unauthenticated-limit: %w", err)
	}
	l.unauth = ratelimit.NewUnauthenticated(unauth)
	n, err := strconv.Atoi(*f.maxInFlight)
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("--max-in-flight: want a positive number, got %q", *f.maxInFlight)
	}
	l.guard = httpx.NewGuard(n, time.Second)
	if l.store, err = ratelimit.Open(ctx, *f.redisURL, *f.redisPrefix); err != nil {
		return nil, errUnavailable{fmt.Errorf("--redis-url: %w", err)}
	}
	if l.store.Shared() {
		log.Info("rate limits shared in Redis", "prefix", *f.redisPrefix)
	}
	return l, nil
}

// errUnavailable is a failure to reach a service, not a bad setting.
type errUnavailable struct{ error }

func (e errUnavailable) Unwrap() error { return e.error }

// product is the limiter of one product.
func (l *limits) product(key string) *ratelimit.Limiter {
	return ratelimit.NewLimiter(l.store, key, l.rates[key], l.logger.With("product", key))
}

// wrap puts the overload guard and the limit on unauthenticated traffic in
// front of a listener's handler.
func (l *limits) wrap(h http.Handler) http.Handler {
	return l.guard.Wrap(l.unauth.Wrap(h))
}

// oauthLimiters makes the built-in authorization server's limits (sign-in,
// registration, token, metadata fetches) count in the shared store when
// Redis is configured; nil keeps its in-memory token buckets.
func (l *limits) oauthLimiters(product string) func(string, server.Limit) server.Limiter {
	if !l.store.Shared() {
		return nil
	}
	return func(name string, lim server.Limit) server.Limiter {
		// A bucket of Burst events refilled one every Every becomes a
		// window of Every×Burst allowing Burst: the same sustained rate.
		rate := ratelimit.Rate{Period: lim.Every * time.Duration(lim.Burst), Limit: int64(lim.Burst)}
		return &sharedOAuthLimiter{store: l.store, name: "oauth:" + product + ":" + name + ":", rate: rate, log: l.logger}
	}
}

// sharedOAuthLimiter is a server.Limiter counting in a ratelimit.Store.
// When the store fails it allows, as the transport's limits do.
type sharedOAuthLimiter struct {
	store *ratelimit.Store
	name  string
	rate  ratelimit.Rate
	log   *slog.Logger
}

func (s *sharedOAuthLimiter) Allow(ctx context.Context, key string) bool {
	c, err := s.store.Take(ctx, s.name+ratelimit.HashKey(key), s.rate)
	if err != nil {
		s.log.WarnContext(ctx, "oauth rate limit store failed", "limit", s.name, "error", err)
		return true
	}
	return !c.Reached
}

func (s *sharedOAuthLimiter) Exhausted(ctx context.Context, key string) bool {
	c, err := s.store.Peek(ctx, s.name+ratelimit.HashKey(key), s.rate)
	if err != nil {
		s.log.WarnContext(ctx, "oauth rate limit store failed", "limit", s.name, "error", err)
		return false
	}
	return c.Remaining <= 0
}
