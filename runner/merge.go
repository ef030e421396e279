package runner

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/output"
	"github.com/ckpt-hpc/ckpt/usage"
)

// Format is an output format of the runner.
type Format int

const (
	// FormatCSV is the CSV written by NewCSV.
	FormatCSV Format = iota + 1
	// FormatJSONL is the JSON lines written by NewJSONL.
	FormatJSONL
)

func (f Format) String() string {
	switch f {
	case FormatCSV:
		return "csv"
	case FormatJSONL:
		return "jsonl"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// FormatOf returns the format a file name's extension implies: ".csv" is
// FormatCSV, ".jsonl" and ".ndjson" are FormatJSONL (case-insensitive).
func FormatOf(path string) (Format, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".csv":
		return FormatCSV, nil
	case ".jsonl", ".ndjson":
		return FormatJSONL, nil
	}
	return 0, usage.Errorf("%q: unknown format (want a name ending in .csv, .jsonl or .ndjson)", path)
}

// maxRecord bounds one CSV record or JSON line that Merge reads.
const maxRecord = 64 << 20

// Merge interleaves the outputs of the shards of one sweep, all in format
// f, into w, which receives exactly the bytes the unsplit run would have
// written. It streams: each input is read once, one record at a time.
//
// Inputs may come in any order and may be empty (a shard with no items
// writes nothing), but not all of them: a sweep with no item to merge is
// an empty or interrupted file, and an error. Merge fails, with a one-line error naming the input and
// line, when an input is not a runner output of format f, when inputs have
// different headers (CSV) or keys (JSONL), when an input's items are not
// increasing (a row moved later in its file may be reported as a missing
// item), when an item appears twice, or when an item is missing. If
// expect is positive, the merged output must hold exactly items
// 0..expect−1; otherwise the largest item seen sets the count, so a
// missing last item can only be caught with expect. An input implementing
// Name() string (an *os.File) is named by it in errors. On error, w may
// have received part of the output.
func Merge(w io.Writer, f Format, expect int, shards ...io.Reader) error {
	if f != FormatCSV && f != FormatJSONL {
		return fmt.Errorf("merge: unknown format %v", f)
	}
	if len(shards) == 0 {
		return errors.New("merge: no input")
	}
	m := &merger{format: f}
	all := make([]*shardReader, len(shards))
	h := make(readerHeap, 0, len(shards))
	names := make([]string, len(shards))
	for i, src := range shards {
		name := fmt.Sprintf("input #%d", i)
		if n, ok := src.(interface{ Name() string }); ok {
			name = n.Name()
		}
		names[i] = name
		r := &shardReader{m: m, idx: i, name: name, br: bufio.NewReader(src), prev: -1}
		all[i] = r
		ok, err := r.advance()
		if err != nil {
			return err
		}
		if ok {
			h = append(h, r)
		}
	}
	heap.Init(&h)

	bw := bufio.NewWriter(w)
	next, last := 0, ""
	for h.Len() > 0 {
		r := h[0]
		k := r.item
		switch {
		case k < next:
			return fmt.Errorf("merge: item %d appears twice: %s and %s:%d", k, last, r.name, r.line)
		case expect > 0 && k >= expect:
			return fmt.Errorf("merge: %s:%d: item %d is beyond the expected %d items", r.name, r.line, k, expect)
		case k > next:
			if err := checkShards(all, expect); err != nil {
				return err
			}
			return fmt.Errorf("merge: item %d is missing from every input (next found: item %d in %s:%d)", next, k, r.name, r.line)
		}
		if next == 0 && m.header != nil {
			if _, err := bw.Write(m.header); err != nil {
				return err
			}
		}
		if _, err := bw.Write(r.raw); err != nil {
			return err
		}
		next++
		last = fmt.Sprintf("%s:%d", r.name, r.line)
		ok, err := r.advance()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	if err := checkShards(all, expect); err != nil {
		return err
	}
	marked := all[0].end != nil // checkShards: all inputs or none have an end line
	switch {
	case next == 0 && !marked:
		return fmt.Errorf("merge: no item in %s (empty, or interrupted before its first row)", nameList(names))
	case expect > 0 && next < expect:
		return fmt.Errorf("merge: item %d is missing from %s (want %d items, found %d: interrupted?)", next, nameList(names), expect, next)
	case len(all) == 1 && expect == 0 && !marked:
		return fmt.Errorf("merge: %s is one input with no shard end line and no expected item count: a sweep interrupted at its end cannot be told from a complete one (give the item count)", names[0])
	}
	return bw.Flush()
}

// checkShards drains every input and, when any of them has a shard end
// line, checks that all of them have one, that they describe the same
// split, that each input holds exactly its shard's items, and that no
// shard is missing or repeated; it names every problem it finds. Inputs
// without end lines (unsplit runs, older outputs) pass unchecked.
func checkShards(all []*shardReader, expect int) error {
	var marked *shardReader
	for _, r := range all {
		for {
			ok, err := r.advance()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
		}
		if r.end != nil && marked == nil {
			marked = r
		}
	}
	if marked == nil {
		return nil
	}
	n, total := marked.end.Shard.Count, marked.end.Items
	var probs []string
	if expect > 0 && expect != total {
		probs = append(probs, fmt.Sprintf("%s says the sweep has %d items, not the expected %d", marked.name, total, expect))
	}
	from := make([]string, n)
	for _, r := range all {
		e := r.end
		switch {
		case e == nil:
			guess := ""
			if r.rows > 0 {
				guess = fmt.Sprintf(" (shard %d/%d, by its items)", r.first%n, n)
			}
			probs = append(probs, fmt.Sprintf("%s has no shard end line%s: interrupted, or not a shard output", r.name, guess))
			continue
		case e.Shard.Count != n || e.Items != total:
			probs = append(probs, fmt.Sprintf("%s is shard %v of %d items, but %s is shard %v of %d items", r.name, e.Shard, e.Items, marked.name, marked.end.Shard, total))
			continue
		case r.rows != e.Shard.Len(total) || (r.rows > 0 && (r.first%n != e.Shard.Index || r.step%n != 0 || r.prev >= total)):
			probs = append(probs, fmt.Sprintf("%s does not hold the %d items of shard %v of %d items (corrupted?)", r.name, e.Shard.Len(total), e.Shard, total))
		case from[e.Shard.Index] != "":
			probs = append(probs, fmt.Sprintf("shard %v is both %s and %s", e.Shard, from[e.Shard.Index], r.name))
			continue
		}
		from[e.Shard.Index] = r.name
	}
	var missing []int
	for i, f := range from {
		if f == "" {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		probs = append(probs, fmt.Sprintf("%d of %d shards missing: %s (resubmit with --array=%s)", len(missing), n, ArrayList(missing), ArrayList(missing)))
	}
	if len(probs) == 0 {
		return nil
	}
	return errors.New("merge: " + strings.Join(probs, "; "))
}

// MergeFiles merges the shard outputs at paths shards into the file dst
// (see Merge); the format comes from the extension of dst, which every
// shard must share. dst must not be one of the shards. dst is written
// through a temporary file renamed on success: on error, whatever dst
// held before is left as it was. A missing or unreadable shard is a usage
// error, as are a negative expect and a single shard without an end line
// and no expect (`ckpt merge --expect`): a sweep interrupted at its end
// cannot be told from a complete one.
func MergeFiles(dst string, expect int, shards ...string) error {
	f, err := FormatOf(dst)
	if err != nil {
		return fmt.Errorf("merge: output %w", err)
	}
	if expect < 0 {
		return usage.Errorf("--expect: %d must be >= 0", expect)
	}
	if len(shards) == 1 && expect == 0 {
		if _, ok, err := ReadTrailer(shards[0]); err == nil && !ok {
			return usage.Errorf("one input (%s) without a shard end line and no --expect: a sweep interrupted at its end cannot be told from a complete one; give --expect with the sweep's item count", shards[0])
		}
	}
	dstInfo, _ := os.Stat(dst)
	var srcs []io.Reader
	for _, s := range shards {
		g, err := FormatOf(s)
		if err != nil {
			return fmt.Errorf("merge: input %w", err)
		}
		if g != f {
			return usage.Errorf("merge: input %q is %v but output %q is %v", s, g, dst, f)
		}
		fh, err := usage.Open(s)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		defer fh.Close()
		if dstInfo != nil {
			if si, err := fh.Stat(); err == nil && os.SameFile(si, dstInfo) {
				return usage.Errorf("merge: output %q is also an input", dst)
			}
		}
		srcs = append(srcs, fh)
	}
	return output.WriteFile(dst, func(w io.Writer) error { return Merge(w, f, expect, srcs...) })
}

// nameList names the inputs in an error: all of them when there are at
// most three, else the first two and a count.
func nameList(names []string) string {
	switch len(names) {
	case 1:
		return names[0]
	}
	if len(names) <= 3 {
		return "every input (" + strings.Join(names, ", ") + ")"
	}
	return fmt.Sprintf("every input (%s, %s and %d more)", names[0], names[1], len(names)-2)
}

// merger holds what all inputs of one Merge must agree on.
type merger struct {
	format     Format
	header     []byte // CSV header line, nil until one is read
	nfields    int    // fields of the CSV header
	schema     string // CSV header or JSONL key list, "" until one is read
	schemaFrom string
}

// shardReader reads one input, one record ahead.
type shardReader struct {
	m     *merger
	idx   int
	name  string
	br    *bufio.Reader
	lines int // lines consumed so far
	seen  bool

	item int    // head record's item
	raw  []byte // head record's bytes, final newline included
	line int    // head record's first line
	prev int    // previous item of this input

	rows  int      // items read so far
	first int      // first item
	step  int      // gcd of (item − first) over the items read
	end   *Trailer // the end line, once read
}

// advance loads the next record; ok is false at the end of the input.
func (r *shardReader) advance() (ok bool, err error) {
	if r.end != nil {
		return false, nil
	}
	if r.m.format == FormatCSV {
		if b, _ := r.br.Peek(1); len(b) == 1 && b[0] == '#' {
			return false, r.readTrailer(nil)
		}
	}
	if r.m.format == FormatCSV && !r.seen {
		r.seen = true
		raw, n, first, nl, err := scanCSV(r.br)
		if err == io.EOF {
			return false, nil
		}
		line := r.lines + 1
		r.lines += nl
		if err != nil {
			return false, fmt.Errorf("merge: %s:%d: %v", r.name, line, err)
		}
		if first != "item" || n < len(leading) {
			return false, fmt.Errorf("merge: %s:%d: header %.60q does not start with item,point,rep,seed (not a runner CSV?)", r.name, line, raw)
		}
		if err := r.checkSchema(string(raw), line); err != nil {
			return false, err
		}
		if r.m.header == nil {
			r.m.header, r.m.nfields = raw, n
		}
	}
	var (
		raw   []byte
		first string
		nl    int
	)
	line := r.lines + 1
	switch r.m.format {
	case FormatCSV:
		var n int
		raw, n, first, nl, err = scanCSV(r.br)
		r.lines += nl
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("merge: %s:%d: %v", r.name, line, err)
		}
		if n != r.m.nfields {
			return false, fmt.Errorf("merge: %s:%d: %d fields, header has %d", r.name, line, n, r.m.nfields)
		}
	case FormatJSONL:
		raw, err = readLine(r.br)
		if err == io.EOF {
			return false, nil
		}
		if err == nil && isTrailer(FormatJSONL, raw) {
			return false, r.readTrailer(raw)
		}
		r.lines++
		if err != nil {
			return false, fmt.Errorf("merge: %s:%d: %v", r.name, line, err)
		}
		var keys string
		first, keys, err = scanJSONL(raw)
		if err != nil {
			return false, fmt.Errorf("merge: %s:%d: %v", r.name, line, err)
		}
		if err := r.checkSchema(keys, line); err != nil {
			return false, err
		}
	}
	k, err := parseCount(first)
	if err != nil || strconv.Itoa(k) != first {
		return false, fmt.Errorf("merge: %s:%d: item %.40q is not a canonical non-negative integer", r.name, line, first)
	}
	if k <= r.prev {
		return false, fmt.Errorf("merge: %s:%d: item %d follows item %d (inputs must be in increasing item order)", r.name, line, k, r.prev)
	}
	r.item, r.raw, r.line, r.prev = k, raw, line, k
	if r.rows == 0 {
		r.first = k
	} else {
		r.step = gcd(r.step, k-r.first)
	}
	r.rows++
	return true, nil
}

// readTrailer reads the end line (already read as line, when not nil) and
// checks that nothing follows it.
func (r *shardReader) readTrailer(line []byte) error {
	var err error
	if line == nil {
		if line, err = readLine(r.br); err != nil {
			return fmt.Errorf("merge: %s:%d: %v", r.name, r.lines+1, err)
		}
	}
	r.lines++
	t, err := parseTrailer(r.m.format, line)
	if err != nil {
		return fmt.Errorf("merge: %s:%d: %v", r.name, r.lines, err)
	}
	if _, err := r.br.Peek(1); err != io.EOF {
		return fmt.Errorf("merge: %s:%d: text after the shard's end line", r.name, r.lines+1)
	}
	r.end = &t
	return nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func (r *shardReader) checkSchema(s string, line int) error {
	here := fmt.Sprintf("%s:%d", r.name, line)
	if r.m.schemaFrom == "" {
		r.m.schema, r.m.schemaFrom = s, here
		return nil
	}
	if s != r.m.schema {
		what := "header"
		if r.m.format == FormatJSONL {
			what = "keys"
		}
		return fmt.Errorf("merge: %s: %s %.80q differ from %.80q in %s", here, what, strings.TrimSuffix(s, "\n"), strings.TrimSuffix(r.m.schema, "\n"), r.m.schemaFrom)
	}
	return nil
}

var errTruncated = errors.New("truncated record (no final newline)")

// scanCSV reads one CSV record as encoding/csv.Writer writes them
// (RFC 4180 quoting, "\n" line ends). It returns the record's bytes
// including the final newline, its number of fields, its first field
// unquoted, and the number of newlines consumed. It returns io.EOF only
// when no byte is left.
func scanCSV(br *bufio.Reader) (raw []byte, nfields int, first string, nl int, err error) {
	const (
		fieldStart = iota
		plain
		quoted
		afterQuote
	)
	st := fieldStart
	inFirst := true
	var fb []byte
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			if len(raw) == 0 {
				return nil, 0, "", 0, io.EOF
			}
			return nil, 0, "", nl, errTruncated
		}
		if err != nil {
			return nil, 0, "", nl, err
		}
		if len(raw) >= maxRecord {
			return nil, 0, "", nl, fmt.Errorf("record longer than %d bytes", maxRecord)
		}
		raw = append(raw, c)
		switch st {
		case fieldStart, plain:
			switch c {
			case ',':
				nfields++
				inFirst = false
				st = fieldStart
			case '\n':
				return raw, nfields + 1, string(fb), nl + 1, nil
			case '"':
				if st == plain {
					return nil, 0, "", nl, errors.New("quote inside an unquoted field")
				}
				st = quoted
			case '\r':
				return nil, 0, "", nl, errors.New("carriage return outside quotes (CRLF line ends?)")
			default:
				st = plain
				if inFirst {
					fb = append(fb, c)
				}
			}
		case quoted:
			if c == '"' {
				st = afterQuote
				continue
			}
			if c == '\n' {
				nl++
			}
			if inFirst {
				fb = append(fb, c)
			}
		case afterQuote:
			switch c {
			case '"':
				st = quoted
				if inFirst {
					fb = append(fb, c)
				}
			case ',':
				nfields++
				inFirst = false
				st = fieldStart
			case '\n':
				return raw, nfields + 1, string(fb), nl + 1, nil
			default:
				return nil, 0, "", nl, fmt.Errorf("character %q after a closing quote", c)
			}
		}
	}
}

// readLine reads one "\n"-terminated line; io.EOF only when no byte is
// left.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > maxRecord {
			return nil, fmt.Errorf("line longer than %d bytes", maxRecord)
		}
		line = append(line, chunk...)
		switch err {
		case nil:
			return line, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(line) == 0 {
				return nil, io.EOF
			}
			return nil, errTruncated
		default:
			return nil, err
		}
	}
}

// scanJSONL checks that line is one JSON object whose first key is "item"
// and returns the item's text and the object's keys joined by commas.
func scanJSONL(line []byte) (item, keys string, err error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", "", errors.New("not a JSON object")
	}
	var ks []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", "", fmt.Errorf("bad JSON: %v", err)
		}
		key, ok := t.(string)
		if !ok {
			return "", "", errors.New("bad JSON object key")
		}
		if len(ks) == 0 {
			if key != "item" {
				return "", "", fmt.Errorf("first key is %.40q, want \"item\" (not a runner JSONL?)", key)
			}
			var n json.Number
			if err := dec.Decode(&n); err != nil {
				return "", "", fmt.Errorf("item is not a number: %v", err)
			}
			item = n.String()
		} else {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return "", "", fmt.Errorf("bad JSON: %v", err)
			}
		}
		ks = append(ks, key)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return "", "", errors.New("unterminated JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", "", errors.New("text after the JSON object")
	}
	if len(ks) == 0 {
		return "", "", errors.New("empty JSON object (no item)")
	}
	return item, strings.Join(ks, ","), nil
}

// readerHeap orders inputs by their head item, then by input position.
type readerHeap []*shardReader

func (h readerHeap) Len() int { return len(h) }
func (h readerHeap) Less(i, j int) bool {
	if h[i].item != h[j].item {
		return h[i].item < h[j].item
	}
	return h[i].idx < h[j].idx
}
func (h readerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *readerHeap) Push(x any)   { *h = append(*h, x.(*shardReader)) }
func (h *readerHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}
