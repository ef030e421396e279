package server

import (
	"math"
	"strconv"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/output"
)

// The answers of the hot path (a grant, an advice) are appended by hand:
// the bytes json.Encoder writes for them (TestAppendIsEncoder checks them
// against it on arbitrary values), without its reflection and its
// allocations. Anything these cannot write exactly as encoding/json would
// (a string that needs escaping, a non-finite float64) reports false and
// the answer goes through encoding/json instead. O(answer length).

// appendAnswer appends v's JSON and a newline if v is a type written by
// hand and writable exactly; ok false leaves b's contents undefined.
func appendAnswer(b []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case coord.Grant:
		b, ok = appendGrant(b, v)
	case api.AdviceView:
		b, ok = appendAdvice(b, v)
	default:
		return b, false
	}
	return append(b, '\n'), ok
}

func appendGrant(b []byte, g coord.Grant) ([]byte, bool) {
	ok := output.JSONPlain(g.Job) && output.JSONPlain(g.RequestID) && output.JSONPlain(g.Status) && finite(g.Expires) && finite(g.Share)
	if !ok {
		return b, false
	}
	b = append(b, `{"job":"`...)
	b = append(b, g.Job...)
	b = append(b, '"')
	if g.RequestID != "" {
		b = append(b, `,"request_id":"`...)
		b = append(b, g.RequestID...)
		b = append(b, '"')
	}
	b = append(b, `,"status":"`...)
	b = append(b, g.Status...)
	b = append(b, '"')
	if g.Token != 0 {
		b = append(b, `,"token":`...)
		b = strconv.AppendUint(b, g.Token, 10)
	}
	if g.Expires != 0 {
		b = output.AppendJSONFloat(append(b, `,"expires_s":`...), g.Expires)
	}
	if g.Share != 0 {
		b = output.AppendJSONFloat(append(b, `,"share_bps":`...), g.Share)
	}
	b = strconv.AppendInt(append(b, `,"waiting":`...), int64(g.Waiting), 10)
	if g.NonBlocking {
		b = append(b, `,"non_blocking":true`...)
	}
	if len(g.Granted) > 0 {
		b = append(b, `,"granted":[`...)
		for i, n := range g.Granted {
			if !output.JSONPlain(n.Job) || !output.JSONPlain(n.RequestID) || !finite(n.Expires) {
				return b, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"job":"`...)
			b = append(b, n.Job...)
			b = append(b, `","request_id":"`...)
			b = append(b, n.RequestID...)
			b = strconv.AppendUint(append(b, `","token":`...), n.Token, 10)
			b = output.AppendJSONFloat(append(b, `,"expires_s":`...), n.Expires)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

func appendAdvice(b []byte, a api.AdviceView) ([]byte, bool) {
	if !output.JSONPlain(a.Job) || !output.JSONPlain(a.Method) || !output.JSONPlain(a.Reason) {
		return b, false
	}
	b = append(b, `{"job":"`...)
	b = append(b, a.Job...)
	b = append(b, `","method":"`...)
	b = append(b, a.Method...)
	b = appendNumber(append(b, `","c_s":`...), a.C)
	b = appendNumber(append(b, `,"mtbf_s":`...), a.MTBF)
	if a.EY != 0 {
		b = appendNumber(append(b, `,"ey":`...), a.EY)
	}
	b = appendNumber(append(b, `,"period_s":`...), a.Period)
	b = appendNumber(append(b, `,"optimum_s":`...), a.Optimum)
	b = appendNumber(append(b, `,"at_s":`...), a.At)
	b = appendNumber(append(b, `,"in_s":`...), a.In)
	if a.Final {
		b = append(b, `,"final":true`...)
	}
	if a.None {
		b = append(b, `,"none":true`...)
	}
	if a.Reason != "" {
		b = append(b, `,"reason":"`...)
		b = append(b, a.Reason...)
		b = append(b, '"')
	}
	return append(b, '}'), true
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// appendNumber is output.Number's MarshalJSON: null when not finite.
func appendNumber(b []byte, x output.Number) []byte {
	f := float64(x)
	if !finite(f) {
		return append(b, "null"...)
	}
	return output.AppendJSONFloat(b, f)
}
