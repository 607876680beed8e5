package test

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// FuzzReadRule builds filters from the fuzzer's bytes over the values of a
// hub with open, private and DM channels, runs them as REQ and COUNT for a
// member, a non-member or an agent, and checks every answer against the read
// rule: refused exactly when it targets something unreadable, otherwise
// exactly the newest readable matches, and never an unreadable event.
func FuzzReadRule(f *testing.F) {
	w := newReadWorld(f)
	readers := []string{"member", "non-member", "agent"}
	kindsOf := []int{0, 1, 3, 5, 7, 9, 1111, 9000, 9007, 24200, 30023, 30078, 39000, 39001, 39002, 40099}
	authors := []string{w.alice.pk, w.eve.pk, w.agent.pk, w.h.Admin.pk}
	hs := []string{"lobby", "vault", "dm-ac", "nowhere"}
	es := []string{w.lobbyMsg.ID, w.vaultMsg.ID, w.dmMsg.ID, w.lobbyReply.ID}
	ps := []string{w.alice.pk, w.eve.pk, w.agent.pk}
	tvals := []string{"plan", "other"}
	ds := []string{"doc", "vault", "read-state:x", "lobby"}
	ids := []string{w.lobbyMsg.ID, w.vaultMsg.ID, w.vaultNewest[0].ID, w.lobbyReply.ID, w.dmMsg.ID}

	pick := func(mask uint64, from []string) []string {
		if mask == 0 {
			return nil
		}
		var out []string
		for i, v := range from {
			if mask&(1<<i) != 0 {
				out = append(out, v)
			}
		}
		if out == nil {
			out = from[:1]
		}
		return out
	}
	f.Add(uint8(1), uint16(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), int16(0), int16(0), uint8(5), uint8(0))
	f.Add(uint8(1), uint16(1<<5), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), int16(0), int16(0), uint8(3), uint8(0))
	f.Add(uint8(2), uint16(0), uint8(0), uint8(0b10), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), int16(0), int16(0), uint8(0), uint8(0))
	f.Add(uint8(1), uint16(0), uint8(0), uint8(0), uint8(0b11), uint8(0b10), uint8(0), uint8(0), uint8(0), int16(0), int16(0), uint8(0), uint8(0))
	f.Add(uint8(0), uint16(1<<11), uint8(0b11), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), int16(0), int16(0), uint8(0), uint8(0))
	f.Add(uint8(2), uint16(1<<9), uint8(0), uint8(0), uint8(0), uint8(0b1), uint8(0), uint8(0), uint8(0), int16(0), int16(0), uint8(0), uint8(0))
	f.Add(uint8(1), uint16(0b111<<12), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0b10), uint8(0), int16(0), int16(0), uint8(0), uint8(0))
	f.Add(uint8(1), uint16(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0b11), int16(0), int16(0), uint8(0), uint8(0))
	f.Add(uint8(1), uint16(0), uint8(0b1), uint8(0), uint8(0), uint8(0), uint8(1), uint8(0), uint8(0), int16(-10), int16(20), uint8(4), uint8(0b11))
	f.Add(uint8(0), uint16(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0), int16(0), int16(0), uint8(0), uint8(0b100))
	f.Fuzz(func(t *testing.T, reader uint8, kindMask uint16, authorMask, hMask, eMask, pMask, tMask, dMask, idMask uint8, since, until int16, limit, flags uint8) {
		for _, r := range w.readers {
			r.t = t
		}
		flt := nostr.Filter{Authors: pick(uint64(authorMask), authors), IDs: pick(uint64(idMask), ids), Limit: int(limit % 40)}
		if kindMask != 0 {
			for i, k := range kindsOf {
				if kindMask&(1<<i) != 0 {
					flt.Kinds = append(flt.Kinds, k)
				}
			}
		}
		for name, vals := range map[string][]string{
			"h": pick(uint64(hMask), hs), "e": pick(uint64(eMask), es), "p": pick(uint64(pMask), ps),
			"t": pick(uint64(tMask), tvals), "d": pick(uint64(dMask), ds),
		} {
			if vals != nil {
				if flt.Tags == nil {
					flt.Tags = nostr.TagMap{}
				}
				flt.Tags[name] = vals
			}
		}
		if flags&1 != 0 {
			s := w.midTime + nostr.Timestamp(since)
			flt.Since = &s
		}
		if flags&2 != 0 {
			u := w.midTime + nostr.Timestamp(until)
			flt.Until = &u
		}
		flt.LimitZero = flags&4 != 0 && flt.Limit == 0
		w.check(t, "fuzzed "+flt.String(), readers[int(reader)%len(readers)], flt)
	})
}
