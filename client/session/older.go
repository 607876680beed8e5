package session

import (
	"context"

	"github.com/ainb/hive/client"
)

// Older is a page of older rows of one channel.
type Older struct {
	Page client.Fetched
	Err  error
}

// Older loads the page before the oldest loaded row of the open channel
// (spec/chat.md, "Paging"), unless one is on its way or the channel's
// start is loaded (nil then).
func (s *Session) Older() Job {
	if s.paging || s.atStart[s.cur] {
		return nil
	}
	_, at, ok := s.chat.Oldest(s.cur)
	if !ok {
		return nil
	}
	s.paging = true
	c, ch := s.c, s.cur
	before := at - 1 // the oldest loaded second is loaded whole
	return func(ctx context.Context) Event {
		p, err := c.FetchPage(ctx, ch, PageSize, &before)
		p.Channel = ch
		return Older{Page: p, Err: err}
	}
}

// TakeOlder applies an older page; added is how many rows of the channel it added.
func (s *Session) TakeOlder(o Older) (a Applied, added int, err error) {
	s.paging = false
	if o.Err != nil {
		return a, 0, o.Err
	}
	before := s.chat.Len(o.Page.Channel)
	a = s.takePages([]client.Fetched{o.Page})
	return a, s.chat.Len(o.Page.Channel) - before, nil
}
