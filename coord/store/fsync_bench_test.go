package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
)

// batch64 is 64 registrations of a core holding 1 000 jobs: the batch a
// commit of 64 clients' requests writes.
func batch64(b *testing.B, s *Bolt) []coord.Changes {
	p, err := arbiter.Policies.Lookup("least-waste")
	if err != nil {
		b.Fatal(err)
	}
	c, _ := coord.New(coord.Config{Policy: p, Bandwidth: 1e9, TTL: 10, NodeMTBF: 1e6})
	var chs []coord.Changes
	for i := range 1000 {
		if _, err := c.Register(0, coord.JobSpec{ID: fmt.Sprintf("job-%04d", i), Nodes: 4, Bytes: 1e9, MTBF: 1e5}); err != nil {
			b.Fatal(err)
		}
		chs = append(chs, c.TakeChanges())
	}
	if s != nil {
		if err := s.Commit(chs...); err != nil {
			b.Fatal(err)
		}
	}
	return chs[:64]
}

// BenchmarkFsyncBoltCommit64 is (a): one durable bbolt commit of a
// 64-change batch (two fdatasyncs).
func BenchmarkFsyncBoltCommit64(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "c.db"), Options{Init: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	chs := batch64(b, s)
	b.ResetTimer()
	for range b.N {
		if err := s.Commit(chs...); err != nil {
			b.Fatal(err)
		}
	}
}

func encoded64(b *testing.B) []byte {
	s, err := Open(filepath.Join(b.TempDir(), "c.db"), Options{Init: true, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	chs := batch64(b, nil)
	s.recs.Reset()
	for _, ch := range chs {
		for i := range ch.Put {
			if _, err := s.recordJob(&ch.Put[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	return append([]byte(nil), s.recs.Bytes()...)
}

// BenchmarkFsyncAppendPrealloc is (b): the same bytes written over a
// preallocated (zero-filled, synced) file, then fdatasync.
func BenchmarkFsyncAppendPrealloc(b *testing.B) {
	rec := encoded64(b)
	f, err := os.Create(filepath.Join(b.TempDir(), "w"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	const size = 64 << 20
	if _, err := f.Write(make([]byte, size)); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(rec)))
	b.ResetTimer()
	off := int64(0)
	for range b.N {
		if off+int64(len(rec)) > size {
			off = 0
		}
		if _, err := f.WriteAt(rec, off); err != nil {
			b.Fatal(err)
		}
		off += int64(len(rec))
		if err := fdatasync(f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFsyncAppendGrow is (c): the same bytes appended to a file that
// grows, then fdatasync (which then also writes the inode's size).
func BenchmarkFsyncAppendGrow(b *testing.B) {
	rec := encoded64(b)
	f, err := os.Create(filepath.Join(b.TempDir(), "w"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.SetBytes(int64(len(rec)))
	b.ResetTimer()
	for range b.N {
		if _, err := f.Write(rec); err != nil {
			b.Fatal(err)
		}
		if err := fdatasync(f); err != nil {
			b.Fatal(err)
		}
	}
}
