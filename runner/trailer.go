package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ShardEnder is implemented by sinks that mark the end of a complete
// shard. Run calls EndShard once, before the final Flush, when it ran
// every item of an explicit shard (Options.Shard.Count > 0) without error
// or cancellation; total is the item count of the whole sweep. The CSV and
// JSONL sinks write an end line (see Trailer); Tee forwards the call to
// its sinks that implement it.
type ShardEnder interface {
	EndShard(sh Shard, total int) error
}

// Trailer is the end line of a complete shard's output: the shard and the
// item count of the whole sweep, from which Merge knows how many shards
// and items to expect. Only shard outputs carry one (an unsplit run writes
// exactly what it always wrote); its absence from a shard file means the
// shard was interrupted.
//
//	CSV:   #ckpt-shard 3/8 items=100
//	JSONL: {"ckpt_shard":"3/8","items":100}
//
// A CSV reader that skips '#' comment lines (pandas' comment="#") reads a
// shard file as it reads the merged one.
type Trailer struct {
	Shard Shard
	Items int
}

const (
	csvTrailerPrefix   = "#ckpt-shard "
	jsonlTrailerPrefix = `{"ckpt_shard":`
)

// Line returns the trailer's line in format f, final newline included.
func (t Trailer) Line(f Format) []byte {
	if f == FormatJSONL {
		return fmt.Appendf(nil, `{"ckpt_shard":%q,"items":%d}`+"\n", t.Shard.String(), t.Items)
	}
	return fmt.Appendf(nil, "%s%s items=%d\n", csvTrailerPrefix, t.Shard, t.Items)
}

// isTrailer reports whether line (which may lack its newline) starts like
// an end line of format f.
func isTrailer(f Format, line []byte) bool {
	if f == FormatJSONL {
		return bytes.HasPrefix(line, []byte(jsonlTrailerPrefix))
	}
	return len(line) > 0 && line[0] == '#'
}

// parseTrailer reads an end line of format f; it accepts exactly what Line
// writes.
func parseTrailer(f Format, line []byte) (Trailer, error) {
	var t Trailer
	bad := fmt.Errorf("bad shard end line %.80q (want %q)", strings.TrimSuffix(string(line), "\n"),
		strings.TrimSuffix(string(Trailer{Shard{3, 8}, 100}.Line(f)), "\n"))
	if !bytes.HasSuffix(line, []byte("\n")) {
		return t, errTruncated
	}
	var spec, items string
	if f == FormatJSONL {
		var v struct {
			Shard *string `json:"ckpt_shard"`
			Items *int    `json:"items"`
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil || v.Shard == nil || v.Items == nil {
			return t, bad
		}
		spec, items = *v.Shard, strconv.Itoa(*v.Items)
	} else {
		rest, ok := strings.CutPrefix(strings.TrimSuffix(string(line), "\n"), csvTrailerPrefix)
		if !ok {
			return t, bad
		}
		if spec, items, ok = strings.Cut(rest, " items="); !ok {
			return t, bad
		}
	}
	sh, err := parseFixed(spec)
	if err != nil {
		return t, bad
	}
	n, err := parseCount(items)
	if err != nil {
		return t, bad
	}
	t = Trailer{sh, n}
	if !bytes.Equal(t.Line(f), line) {
		return Trailer{}, bad
	}
	return t, nil
}

// EndShard writes the CSV end line.
func (c *csvSink[R]) EndShard(sh Shard, total int) error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return err
	}
	_, err := c.out.Write(Trailer{sh, total}.Line(FormatCSV))
	return err
}

// EndShard writes the JSONL end line.
func (j *jsonlSink[R]) EndShard(sh Shard, total int) error {
	_, err := j.w.Write(Trailer{sh, total}.Line(FormatJSONL))
	return err
}

// EndShard passes the call to every sink of the tee that implements
// ShardEnder.
func (t tee[R]) EndShard(sh Shard, total int) error {
	for _, s := range t {
		if e, ok := s.(ShardEnder); ok {
			if err := e.EndShard(sh, total); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadTrailer reads the end line of the runner output at path, in the
// format of its extension: ok is false when its last line is not an end
// line (an unsplit run, or an interrupted shard). It reads only the file's
// last bytes.
func ReadTrailer(path string) (t Trailer, ok bool, err error) {
	f, err := FormatOf(path)
	if err != nil {
		return t, false, err
	}
	fh, err := os.Open(path)
	if err != nil {
		return t, false, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return t, false, err
	}
	const tail = 256 // longer than any end line
	off := max(0, st.Size()-tail)
	buf := make([]byte, st.Size()-off)
	if _, err := fh.ReadAt(buf, off); err != nil && err != io.EOF {
		return t, false, err
	}
	if !bytes.HasSuffix(buf, []byte("\n")) {
		return t, false, nil
	}
	line := buf[bytes.LastIndexByte(buf[:len(buf)-1], '\n')+1:]
	if !isTrailer(f, line) {
		return t, false, nil
	}
	t, err = parseTrailer(f, line)
	if err != nil {
		return t, false, fmt.Errorf("%s: %v", path, err)
	}
	return t, true, nil
}
