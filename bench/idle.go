package main

import (
	"context"
	"time"
)

// ---- idle: many connections each holding one open REQ ----

type idleResult struct {
	Conns     int
	RSSBefore int64 // KiB
	RSSAfter  int64 // KiB
	KBPerConn float64
}

func runIdle(ctx context.Context, tg *target, ch string, conns int) (*idleResult, error) {
	res := &idleResult{Conns: conns}
	time.Sleep(time.Second)
	res.RSSBefore, _ = tg.mem()
	cs, err := subscribeChannel(ctx, tg.urls(), &tg.auth, conns, ch, 120*time.Second, nil)
	if err != nil {
		return nil, err
	}
	defer closeAll(cs)
	time.Sleep(2 * time.Second)
	res.RSSAfter, _ = tg.mem()
	res.KBPerConn = float64(res.RSSAfter-res.RSSBefore) / float64(conns)
	return res, nil
}
