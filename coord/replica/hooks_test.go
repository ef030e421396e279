package replica

// Test hooks: a network partition and the count of restored snapshots.

// setCut cuts the replica off (closing every open connection) or heals it.
func (l *layer) setCut(cut bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cut = cut
	if cut {
		for c := range l.conns {
			c.Close()
		}
		clear(l.conns)
	}
}

// cut cuts the replica off the network, or heals it (tests: a partition).
func (r *Replica) cut(on bool) { r.layer.setCut(on) }

// restored is how many snapshots the replica restored.
func (f *fsm) restored() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.restores
}
