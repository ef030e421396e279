package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// The write-ahead log beside the database: a header (walMagic, then the
// database's 16-byte WAL identity) and records, each
//
//	length uint32 | CRC-32C uint32 | sequence uint64 | payload
//
// (little endian; the CRC covers the length, the sequence and the
// payload). A payload is a batch's operations, each a tag byte and
// uvarint-prefixed strings: 'P' id record (a job's JSON record, as the
// database holds it), 'D' id, and last 'M' record (the meta record).
// Sequences rise by one from record to record; the database's meta holds
// the last one it has applied. After a checkpoint the file is written
// again from the start, so the records of earlier rounds lie beyond the
// current ones: their sequences are lower, which is how a reader tells them
// from the log's continuation.
const (
	walMagic     = "ckpt-coord-wal/1"
	walHeaderLen = len(walMagic) + walIDLen
	walIDLen     = 16
	recHeaderLen = 16
	// walChunk is what the file grows by at most when a record does not
	// fit (see grow).
	walChunk = 1 << 20
	// maxPayload bounds a record's length when the log is read (a damaged
	// length field is not a 4 GiB allocation).
	maxPayload = 1 << 30
)

// castagnoli is CRC-32C's table, built on first use (package
// initialisation allocates nothing for a command that serves no store).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// walPaths are the two logs of the database at path: one receives the
// commits while the records of the other are being checkpointed.
func walPaths(path string) [2]string { return [2]string{path + ".wal", path + ".wal2"} }

// walRecord is one record read back.
type walRecord struct {
	seq     uint64
	off     int
	payload []byte
}

// recordAt parses the record at off in data: ok only if its header and
// payload fit, its length is not zero and its CRC holds.
func recordAt(data []byte, off int) (r walRecord, n int, ok bool) {
	if off < 0 || len(data)-off < recHeaderLen {
		return r, 0, false
	}
	h := data[off : off+recHeaderLen]
	l := binary.LittleEndian.Uint32(h[0:4])
	if l == 0 || l > maxPayload || uint64(l) > uint64(len(data)-off-recHeaderLen) {
		return r, 0, false
	}
	payload := data[off+recHeaderLen : off+recHeaderLen+int(l)]
	if binary.LittleEndian.Uint32(h[4:8]) != recordCRC(h, payload) {
		return r, 0, false
	}
	return walRecord{seq: binary.LittleEndian.Uint64(h[8:16]), off: off, payload: payload}, recHeaderLen + int(l), true
}

func recordCRC(h, payload []byte) uint32 {
	t := castagnoli()
	c := crc32.Update(0, t, h[0:4])
	c = crc32.Update(c, t, h[8:16])
	return crc32.Update(c, t, payload)
}

// walScan is what reading a log found.
type walScan struct {
	// records are the complete records after applied, in order (their
	// sequences rise by one; the caller checks that the first follows
	// applied, or the other file's last).
	records []walRecord
	// last is the last sequence of the log (applied if none is newer).
	last uint64
	// runLast is the sequence of the log's last record (0: none), end the
	// offset after it (walHeaderLen: none).
	runLast uint64
	end     int
	// torn is the offset of a discarded tail record (one whose header
	// announces the next sequence but whose CRC fails: a crash during
	// its append, never acknowledged), or -1.
	torn int
}

// scanWAL reads the records of a log (data, header excluded, starting at
// offset walHeaderLen) newer than applied, the last sequence the database
// holds. The log is the run of records from the header whose sequences
// rise by one; it ends at the first offset that holds no valid record or
// one of an earlier round (a lower sequence). Past that end, a valid
// record newer than the log is corruption of the record at the end (a
// damaged record followed by good ones): an error naming the offset.
// Every payload newer than applied must parse.
func scanWAL(data []byte, applied uint64) (walScan, error) {
	sc := walScan{last: applied, torn: -1}
	off := walHeaderLen
	var prev uint64
	started := false
	for {
		r, n, ok := recordAt(data, off)
		if !ok || (started && r.seq <= prev) {
			break
		}
		if started && r.seq != prev+1 {
			return sc, fmt.Errorf("record at offset %d has sequence %d after %d", off, r.seq, prev)
		}
		if r.seq > applied {
			if err := parseOps(r.payload, false, nil); err != nil {
				return sc, fmt.Errorf("record at offset %d (sequence %d): %w", off, r.seq, err)
			}
			sc.records = append(sc.records, r)
		}
		started, prev = true, r.seq
		off += n
	}
	if started && prev > sc.last {
		sc.last = prev
	}
	sc.runLast, sc.end = prev, off
	// A tail whose header announces the next sequence is a torn append.
	if len(data)-off >= recHeaderLen {
		if l := binary.LittleEndian.Uint32(data[off : off+4]); l != 0 && binary.LittleEndian.Uint64(data[off+8:off+16]) == sc.last+1 {
			sc.torn = off
		}
	}
	for p := off + 1; p+recHeaderLen < len(data); p++ {
		if data[p]|data[p+1]|data[p+2]|data[p+3] == 0 { // a zero length: skip the run of zeros (a preallocated log's rest)
			z := len(data) - p - len(bytes.TrimLeft(data[p:], "\x00"))
			p += z - 4 // the next window's length holds the first non-zero byte
			continue
		}
		if seq := binary.LittleEndian.Uint64(data[p+8 : p+16]); seq <= sc.last || seq-sc.last > 1<<32 {
			continue // a record of an earlier round, or not a record
		}
		if r, _, ok := recordAt(data, p); ok {
			return sc, fmt.Errorf("damaged record at offset %d followed by a complete record at offset %d (sequence %d): corrupt, not torn", off, p, r.seq)
		}
	}
	return sc, nil
}

// walOp is one operation of a payload.
type walOp struct {
	tag       byte
	id, value []byte
}

// parseOps checks a payload (with many, a concatenation of payloads) and,
// with fn, hands it each operation.
func parseOps(p []byte, many bool, fn func(walOp)) error {
	field := func() ([]byte, error) {
		l, n := binary.Uvarint(p)
		if n <= 0 || l > uint64(len(p)-n) {
			return nil, errors.New("truncated field")
		}
		f := p[n : n+int(l)]
		p = p[n+int(l):]
		return f, nil
	}
	meta := false
	for len(p) > 0 {
		if meta && !many {
			return errors.New("operations after the meta record")
		}
		meta = false
		var op walOp
		var err error
		op.tag, p = p[0], p[1:]
		switch op.tag {
		case 'P':
			if op.id, err = field(); err == nil {
				op.value, err = field()
			}
		case 'D':
			op.id, err = field()
		case 'M':
			op.value, err = field()
			meta = true
		default:
			return fmt.Errorf("unknown operation %q", op.tag)
		}
		if err != nil {
			return err
		}
		if fn != nil {
			fn(op)
		}
	}
	if !meta {
		return errors.New("no meta record")
	}
	return nil
}

func appendField(b, f []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(f)))
	return append(b, f...)
}

// wal is an open log.
type wal struct {
	f      *os.File
	path   string
	size   int64 // the file's length
	off    int64 // where the next record goes
	noSync bool
	rec    []byte // the record being written, reused
	// pend holds the payloads of the records since the last checkpoint,
	// concatenated (a sequence of operations).
	pend []byte
}

// createWAL writes a new log for the identity id at path, replacing a
// file there: under a temporary name, with pre bytes of zeros after its
// header if the disk has the room, synced, then renamed over path and its
// directory synced, so that path never holds a log without its header.
func createWAL(path string, id []byte, noSync bool, pre int64) (_ *wal, err error) {
	tmp := path + ".tmp"
	os.Remove(tmp) // a crashed open's
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if walCreateHook != nil {
		if err := walCreateHook(path); err != nil {
			return nil, err
		}
	}
	w := &wal{f: f, path: path, off: int64(walHeaderLen), noSync: noSync}
	h := append([]byte(walMagic), id...)
	if _, err := f.Write(h); err != nil {
		return nil, err
	}
	w.size = int64(len(h))
	if pre > 0 {
		w.grow(w.size + pre) // no room: it grows on demand
	}
	if err := w.sync(); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	if !noSync {
		if err := syncDir(filepath.Dir(path)); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// walCreateHook, if set (by tests), is called by createWAL before it
// writes; an error fails the creation (a full disk, say).
var walCreateHook func(path string) error

// openWAL opens an existing log and checks its header against id; data
// is its whole content.
func openWAL(path string, id []byte, noSync bool) (*wal, []byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	switch {
	case len(data) < walHeaderLen || string(data[:len(walMagic)]) != walMagic:
		f.Close()
		return nil, nil, errors.New("not a ckpt coordinator WAL (bad header)")
	case !bytes.Equal(data[len(walMagic):walHeaderLen], id):
		f.Close()
		return nil, nil, errors.New("the WAL of another database (its identity differs from the database's)")
	}
	return &wal{f: f, path: path, size: int64(len(data)), off: int64(walHeaderLen), noSync: noSync}, data, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func (w *wal) sync() error {
	if syncHook != nil {
		if err := syncHook(); err != nil {
			return err
		}
	}
	if w.noSync {
		return nil
	}
	return fdatasync(w.f)
}

// syncHook, if set (by tests), is called by every sync of a WAL; an error
// fails it (an I/O error).
var syncHook func() error

// errFailStop marks an append whose failed record could not be erased:
// the store refuses every later commit.
var errFailStop = errors.New("the failed record could not be erased from the WAL: the store refuses further commits (stop the server and start it again)")

// append writes the record in w.rec (header space first, payload after)
// with sequence seq and syncs it; on success the payload joins w.pend. On
// failure nothing advances, and the record's header is overwritten with
// zeros and synced, so that neither a later open nor the next record
// takes the refused record for a committed one (it may have reached the
// disk although its sync failed); if that fails too the error wraps
// errFailStop.
func (w *wal) append(seq uint64) error {
	r := w.rec
	binary.LittleEndian.PutUint32(r[0:4], uint32(len(r)-recHeaderLen))
	binary.LittleEndian.PutUint64(r[8:16], seq)
	binary.LittleEndian.PutUint32(r[4:8], recordCRC(r[:recHeaderLen], r[recHeaderLen:]))
	end := w.off + int64(len(r))
	if end > w.size {
		if err := w.grow(end); err != nil {
			return err
		}
	}
	if _, err := w.f.WriteAt(r, w.off); err != nil {
		return w.erase(err)
	}
	if err := w.sync(); err != nil {
		return w.erase(err)
	}
	w.off = end
	w.pend = append(w.pend, r[recHeaderLen:]...)
	return nil
}

// erase overwrites the header of the record at w.off with zeros after
// its append failed with err.
func (w *wal) erase(err error) error {
	if _, werr := w.f.WriteAt(make([]byte, recHeaderLen), w.off); werr != nil {
		return fmt.Errorf("%w; %w", err, errFailStop)
	}
	if serr := w.sync(); serr != nil {
		return fmt.Errorf("%w; %w", err, errFailStop)
	}
	return err
}

// grow extends the file to at least end with zeros, written once so that
// later rounds overwrite them in place: by walChunk, or by its size while
// it is smaller (a small log does not claim a chunk). If that fails (a
// full disk) it gives the extra space back and grows by what the record
// needs only.
func (w *wal) grow(end int64) error {
	size := max(end, w.size+min(walChunk, w.size))
	if _, err := w.f.WriteAt(make([]byte, size-w.size), w.size); err != nil {
		w.f.Truncate(w.size)
		size = end
		if _, err := w.f.WriteAt(make([]byte, size-w.size), w.size); err != nil {
			w.f.Truncate(w.size)
			return err
		}
	}
	w.size = size
	return nil
}
