package client

import "time"

// ConnState is the client's connection as a person follows it: connected,
// or reconnecting (with the next attempt's time and the last one's error),
// or given up for good.
type ConnState struct {
	Connected      bool
	Connecting     bool      // an attempt (dial and AUTH) is under way
	Authenticating bool      // the attempt's hub answered: NIP-42 AUTH is under way
	NextTry        time.Time // when not Connecting: when the next attempt starts
	Attempts       int       // attempts since the connection was lost
	LastErr        error     // the last attempt's error
	Failed         error     // reconnecting gave up (Err): AUTH refused, pin mismatch
}

// State is the connection's state now.
func (c *Client) State() ConnState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil {
		return ConnState{Connected: true}
	}
	s := c.retry
	s.Failed = c.failed
	return s
}

func (c *Client) setRetry(f func(*ConnState)) {
	c.mu.Lock()
	f(&c.retry)
	c.mu.Unlock()
}
