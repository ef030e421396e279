package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/ckpt-hpc/ckpt/output/jsontest"
	bolt "go.etcd.io/bbolt"
	"pgregory.net/rapid"
)

// The records a commit writes are json.Marshal's bytes (the oracle) for
// any job and meta record — ids with HTML characters, escapes and any
// Unicode, leases of every kind, fractional and huge numbers — even when
// the commit's buffer grows under the records written before: each key
// holds exactly Marshal's encoding of its job after the commit (with the
// WAL, once a checkpoint has applied it).
func TestRecordsAreMarshal(t *testing.T) {
	for _, noWAL := range []bool{true, false} {
		t.Run(fmt.Sprintf("NoWAL=%v", noWAL), func(t *testing.T) { recordsAreMarshal(t, noWAL) })
	}
}

// checkpointed applies s's WAL (if any) to its database.
func checkpointed(t interface{ Fatal(...any) }, s *Bolt) {
	if s.wals[0] == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkpointAll(""); err != nil {
		t.Fatal(err)
	}
}

func recordsAreMarshal(t *testing.T, noWAL bool) {
	s, err := Open(filepath.Join(t.TempDir(), "c.db"), Options{Init: true, NoSync: true, NoWAL: noWAL})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "jobs")
		want := map[string][]byte{}
		var ch coord.Changes
		for i := range n {
			id := rapid.StringMatching(`[a-z<>&"\\\x{00e9}\x{2028}-]{1,12}`).Draw(t, "id") + string(rune('A'+i%26)) + string(rune('0'+i/26))
			j := coord.Job{Spec: coord.JobSpec{ID: id, Nodes: rapid.IntRange(1, 1<<20).Draw(t, "nodes"),
				Bytes: rapid.Float64Range(0, 1e18).Draw(t, "bytes"), MTBF: rapid.Float64Range(1, 1e12).Draw(t, "mtbf"),
				AuthHash: rapid.StringMatching(`[0-9a-f]{0,64}`).Draw(t, "hash")},
				LastCheckpoint: rapid.Float64().Filter(func(f float64) bool { return f == f && f-f == 0 }).Draw(t, "last")}
			if rapid.Bool().Draw(t, "lease") {
				j.Lease = &coord.Lease{RequestID: rapid.StringMatching(`[A-Za-z0-9._:-]{1,20}`).Draw(t, "rid"),
					Kind:  arbiter.Kind(rapid.IntRange(int(arbiter.Input), int(arbiter.Output)).Draw(t, "kind")),
					Bytes: rapid.Float64Range(0, 1e15).Draw(t, "lbytes"), Granted: rapid.Bool().Draw(t, "granted"),
					Token: rapid.Uint64().Draw(t, "token"), Expires: rapid.Float64Range(-1e9, 1e12).Draw(t, "expires")}
			}
			ch.Put = append(ch.Put, j)
			b, err := json.Marshal(j)
			if err != nil {
				t.Fatal(err)
			}
			want[id] = b
		}
		ch.Meta = coord.Meta{Token: rapid.Uint64().Draw(t, "metatoken"), Seq: rapid.Uint64().Draw(t, "seq"), Now: rapid.Float64Range(0, 1e12).Draw(t, "now")}
		if err := s.Commit(ch); err != nil {
			t.Fatal(err)
		}
		wantMeta, _ := json.Marshal(ch.Meta)
		checkpointed(t, s)
		s.db.View(func(tx *bolt.Tx) error {
			for id, b := range want {
				if got := tx.Bucket(bucketJobs).Get([]byte(id)); !bytes.Equal(got, b) {
					t.Fatalf("job %q stored as\n%s\nwant Marshal's\n%s", id, got, b)
				}
			}
			if got := tx.Bucket(bucketMeta).Get(keyState); !bytes.Equal(got, wantMeta) {
				t.Fatalf("meta stored as %s, want %s", got, wantMeta)
			}
			return nil
		})
	})
}

// fill sets every field of the struct v points to (recursively: pointers
// to structs, slices of structs) to a drawn value; tame draws only what
// the server writes (ids, finite numbers, named kinds). A field of a kind
// it does not know fails the test: whoever adds one to a record extends
// fill, and the appender, which the comparison then checks.
func fill(t *rapid.T, v reflect.Value, tame bool, path string) {
	for i := range v.NumField() {
		f, name := v.Field(i), path+"."+v.Type().Field(i).Name
		if rapid.IntRange(0, 3).Draw(t, name+"?") == 0 {
			continue // the zero value: omitempty's case
		}
		switch {
		case f.Type() == reflect.TypeFor[arbiter.Kind]():
			lo, hi := -2, 7
			if tame {
				lo, hi = int(arbiter.Input), int(arbiter.Output)
			}
			f.SetInt(int64(rapid.IntRange(lo, hi).Draw(t, name)))
		case f.Kind() == reflect.String:
			if tame {
				f.SetString(rapid.StringMatching(`[A-Za-z0-9._:-]{0,20}`).Draw(t, name))
			} else {
				f.SetString(jsontest.String().Draw(t, name))
			}
		case f.Kind() == reflect.Float64:
			x := jsontest.Float().Draw(t, name)
			if tame && (math.IsNaN(x) || math.IsInf(x, 0)) {
				x = 1
			}
			f.SetFloat(x)
		case f.Kind() == reflect.Int:
			f.SetInt(rapid.Int64Range(math.MinInt64, math.MaxInt64).Draw(t, name))
		case f.Kind() == reflect.Uint64:
			f.SetUint(rapid.Uint64().Draw(t, name))
		case f.Kind() == reflect.Bool:
			f.SetBool(rapid.Bool().Draw(t, name))
		case f.Kind() == reflect.Struct:
			fill(t, f, tame, name)
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct:
			f.Set(reflect.New(f.Type().Elem()))
			fill(t, f.Elem(), tame, name)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct:
			n := rapid.IntRange(0, 4).Draw(t, name+"#")
			f.Set(reflect.MakeSlice(f.Type(), n, n))
			for k := range n {
				fill(t, f.Index(k), tame, fmt.Sprintf("%s[%d]", name, k))
			}
		default:
			t.Fatalf("fill: field %s of type %s: unknown to fill (and to appendRecord?)", name, f.Type())
		}
	}
}

// TestAppendRecordIsMarshal: every job and meta record appendRecord
// writes is json.Marshal's bytes (the oracle, on arbitrary values with
// every field drawn, so a field added to coord.Job, JobSpec, Lease, Past
// or Meta without the appender knowing fails here); it declines only
// what it cannot write as json does, and every value json refuses (NaN,
// ±Inf, an unnamed kind) it declines, leaving the error to json; a tame
// record (what the server writes) it never declines.
func TestAppendRecordIsMarshal(t *testing.T) {
	var tally jsontest.Tally
	rapid.Check(t, func(t *rapid.T) {
		tame := rapid.IntRange(0, 2).Draw(t, "tame") == 0
		var v any
		if rapid.IntRange(0, 3).Draw(t, "meta") == 0 {
			var m coord.Meta
			fill(t, reflect.ValueOf(&m).Elem(), tame, "Meta")
			v = m
		} else {
			var j coord.Job
			fill(t, reflect.ValueOf(&j).Elem(), tame, "Job")
			v = j
		}
		prefix := []byte("prior")
		got, ok := appendRecord(prefix, v)
		want, err := json.Marshal(v)
		tally.Check(t, v, got, ok, append([]byte("prior"), want...), err == nil, tame)
	})
	tally.Both(t)
}

// TestRecordFallsBackToMarshal: a record the appender declines still
// goes through Commit with json's bytes, and a NaN keeps json's error.
func TestRecordFallsBackToMarshal(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "c.db"), Options{Init: true, NoSync: true, NoWAL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	odd := coord.Job{Spec: coord.JobSpec{ID: "a<b>&\u2028é", Nodes: 1, AuthHash: "x\"y"}, Recent: []coord.Past{{RequestID: "r&", Outcome: "released"}}}
	if err := s.Commit(coord.Changes{Put: []coord.Job{odd}}); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(odd)
	s.db.View(func(tx *bolt.Tx) error {
		if got := tx.Bucket(bucketJobs).Get([]byte(odd.Spec.ID)); !bytes.Equal(got, want) {
			t.Errorf("stored %s, want %s", got, want)
		}
		return nil
	})
	nan := coord.Job{Spec: coord.JobSpec{ID: "n", Nodes: 1}, CEst: math.NaN()}
	_, merr := json.Marshal(nan)
	if err := s.Commit(coord.Changes{Put: []coord.Job{nan}}); err == nil || !strings.Contains(err.Error(), merr.Error()) {
		t.Errorf("a NaN record: err %v, want json's %v", err, merr)
	}
	bad := coord.Job{Spec: coord.JobSpec{ID: "k", Nodes: 1}, Lease: &coord.Lease{Kind: 9}}
	_, merr = json.Marshal(bad)
	if err := s.Commit(coord.Changes{Put: []coord.Job{bad}}); err == nil || !strings.Contains(err.Error(), merr.Error()) {
		t.Errorf("an unnamed kind: err %v, want json's %v", err, merr)
	}
}

// FuzzAppendRecord: any job record json reads back (old databases and
// WALs hold such), appended by hand, is json.Marshal's bytes.
func FuzzAppendRecord(f *testing.F) {
	f.Add([]byte(`{"spec":{"id":"job-0001","nodes":4,"bytes":1000000000,"mtbf":100000,"auth_hash":"ab"},"num":1,"registered":0,"last_checkpoint":0,"c_est":0.025,"samples":0,"checkpoints":0}`))
	f.Add([]byte(`{"spec":{"id":"j","nodes":1},"num":2,"registered":1e-7,"last_checkpoint":1e21,"c_est":1,"samples":1,"checkpoints":3,"lease":{"request_id":"r1","kind":"checkpoint","bytes":1,"duration":0.5,"since":3,"seq":9,"ttl":30,"granted":true,"token":4,"expires":33},"recent":[{"request_id":"r0","token":3,"outcome":"released","kind":"recovery","until":600}],"ended":true,"ended_at":7,"failed":true}`))
	f.Add([]byte(`{"spec":{"id":"a\u003cb","nodes":1,"method":"\u2028"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var j coord.Job
		if json.Unmarshal(data, &j) != nil {
			return
		}
		want, err := json.Marshal(j)
		got, ok := appendRecord(nil, j)
		if ok && (err != nil || !bytes.Equal(got, want)) {
			t.Fatalf("appendRecord of %#v:\n got %s\nwant %s (err %v)", j, got, want, err)
		}
		var m coord.Meta
		if json.Unmarshal(data, &m) != nil {
			return
		}
		want, err = json.Marshal(m)
		if got, ok := appendRecord(nil, m); ok && (err != nil || !bytes.Equal(got, want)) {
			t.Fatalf("appendRecord of %#v:\n got %s\nwant %s (err %v)", m, got, want, err)
		}
	})
}

// BenchmarkRecord: one job record with a lease and a past request, and
// the meta record, by encoding/json (the path before) and by hand.
func BenchmarkRecord(b *testing.B) {
	j := coord.Job{Spec: coord.JobSpec{ID: "job-0421", Nodes: 4, Bytes: 1e9, MTBF: 1e5, AuthHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},
		Num: 421, Registered: 1795906630.2549033, LastCheckpoint: 1795906630.2549033, CEst: 0.025,
		Lease:  &coord.Lease{RequestID: "r17", Kind: arbiter.Checkpoint, Bytes: 1e9, Duration: 0.025, Since: 1795906631.5, Seq: 17, TTL: 10, Expires: 1795906641.5},
		Recent: []coord.Past{{RequestID: "r16", Token: 12, Outcome: coord.OutReleased, Until: 1795907230.25}}}
	m := coord.Meta{Token: 12, Seq: 1421, JobNum: 1000, Exposure: 12.5, Grants: 12, Releases: 11, BytesGranted: 1.2e10}
	b.Run("encoding-json", func(b *testing.B) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		for b.Loop() {
			buf.Reset()
			enc.Encode(j)
			enc.Encode(m)
		}
	})
	b.Run("hand", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = appendJob(buf[:0], &j)
			buf, _ = appendMeta(buf, &m)
		}
	})
}
