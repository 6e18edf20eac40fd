package shellsafety

import "sync"

// memo is a verdict computed on first use and remembered, safe for
// concurrent use, so a shared Command stays immutable to its readers.
type memo[T any] struct {
	once sync.Once
	v    T
}

func (m *memo[T]) get(compute func() T) T {
	m.once.Do(func() { m.v = compute() })
	return m.v
}
