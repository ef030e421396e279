package advise

import (
	"math"
	"strconv"
	"strings"
)

// A Level is one grouping of jobs: which of the identifying fields it keeps.
type Level struct {
	Name                                           string
	User, Group, App, Queue, Partition, Nodes, Req bool
}

// Levels is the fallback order, narrowest first: a job is advised from the
// first level whose group holds enough history. The user's requested time
// comes before the job name and node class because it is the strongest
// single predictor of the run in published studies; levels with the
// requested time are skipped when the user gave none.
var Levels = []Level{
	{Name: "user+account+name+queue+partition+nodes+time", User: true, Group: true, App: true, Queue: true, Partition: true, Nodes: true, Req: true},
	{Name: "user+account+queue+partition+nodes+time", User: true, Group: true, Queue: true, Partition: true, Nodes: true, Req: true},
	{Name: "user+nodes+time", User: true, Nodes: true, Req: true},
	{Name: "user+time", User: true, Req: true},
	{Name: "user+account+name+queue+partition+nodes", User: true, Group: true, App: true, Queue: true, Partition: true, Nodes: true},
	{Name: "user+nodes", User: true, Nodes: true},
	{Name: "user", User: true},
}

// Query is what is known of a job about to be submitted.
type Query struct {
	Who
	Nodes     int64   `json:"nodes"`
	Requested float64 `json:"requested,omitempty"` // the user's --time, 0 when none
}

// Key is the group key of q at level l (levels are numbered in Levels).
// Keys of one level sort together; the fields are separated by a byte that
// no field holds (fields are sanitised).
func Key(l int, q Query) string {
	lv := Levels[l]
	var b strings.Builder
	b.Grow(48)
	b.WriteString(strconv.Itoa(l))
	add := func(on bool, tag byte, v string) {
		if on {
			b.WriteByte(' ')
			b.WriteByte(tag)
			b.WriteString(clean(v))
		}
	}
	add(lv.User, 'u', q.User)
	add(lv.Group, 'g', q.Group)
	add(lv.App, 'a', q.App)
	add(lv.Queue, 'q', q.Queue)
	add(lv.Partition, 'p', q.Partition)
	if lv.Nodes {
		add(true, 'n', strconv.FormatInt(NodeClass(q.Nodes), 10))
	}
	if lv.Req {
		add(true, 'r', strconv.FormatInt(int64(math.Round(q.Requested)), 10))
	}
	return b.String()
}

// clean maps the bytes a key uses as separators or that JSON would escape
// (blanks, control characters, quotes, backslashes) to '_'.
func clean(s string) string {
	bad := func(r rune) bool { return r <= ' ' || r == '"' || r == '\\' || r == 0x7f }
	if strings.IndexFunc(s, bad) >= 0 {
		return strings.Map(func(r rune) rune {
			if bad(r) {
				return '_'
			}
			return r
		}, s)
	}
	return s
}

// query is the Query of a logged job.
func (j Job) query() Query { return Query{Who: j.Who, Nodes: j.Nodes, Requested: j.Requested} }
