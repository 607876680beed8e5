package chat

import "sort"

// sorted is a list of rows kept in timeline order.
type sorted []*row

// at is where k sits (or would sit) in s.
func (s sorted) at(k key) int {
	return sort.Search(len(s), func(i int) bool { return !s[i].k.less(k) })
}

// insert puts r at its place.
func (s *sorted) insert(r *row) {
	i := s.at(r.k)
	*s = append(*s, nil)
	copy((*s)[i+1:], (*s)[i:])
	(*s)[i] = r
}

// remove takes r out (found by its current key).
func (s *sorted) remove(r *row) {
	i := s.at(r.k)
	if i < len(*s) && (*s)[i] == r {
		*s = append((*s)[:i], (*s)[i+1:]...)
	}
}
