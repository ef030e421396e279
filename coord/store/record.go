package store

import (
	"math"
	"strconv"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/iosim/arbiter"
	"github.com/ckpt-hpc/ckpt/output"
)

// The records a commit writes (a coord.Job, the coord.Meta) are appended
// by hand: json.Marshal's bytes for them (TestAppendRecordIsMarshal
// checks them against it on arbitrary values, every field filled by
// reflection so that a field the appender does not know fails it; a fuzz
// target on decoded records), without its reflection. A record this
// cannot write exactly as encoding/json would — a string json escapes
// (quote, backslash, control, <, >, &, non-ASCII), a non-finite float64
// (an error in json), a kind outside arbiter's names (an error too) —
// reports false and goes through encoding/json, errors included, as
// before. The server's ids are [A-Za-z0-9._:-], its hashes hex: every
// record it writes takes the hand path. O(record length).

// appendRecord appends v's json.Marshal encoding if v is a record type
// written by hand and writable exactly; ok false leaves b's contents
// beyond its length undefined (nothing of v is kept).
func appendRecord(b []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case coord.Job:
		return appendJob(b, &v)
	case coord.Meta:
		return appendMeta(b, &v)
	}
	return b, false
}

func appendJob(b []byte, j *coord.Job) ([]byte, bool) {
	s := &j.Spec
	if !output.JSONPlain(s.ID) || !output.JSONPlain(s.Method) || !output.JSONPlain(s.AuthHash) ||
		!finite(s.Bytes) || !finite(s.C) || !finite(s.R) || !finite(s.MTBF) || !finite(s.EY) || !finite(s.Work) || !finite(s.End) ||
		!finite(j.Registered) || !finite(j.LastCheckpoint) || !finite(j.CEst) || !finite(j.EndedAt) {
		return b, false
	}
	b = appendStr(append(b, `{"spec":{"id":`...), s.ID)
	b = strconv.AppendInt(append(b, `,"nodes":`...), int64(s.Nodes), 10)
	b = appendFloatOmit(b, `,"bytes":`, s.Bytes)
	b = appendFloatOmit(b, `,"c":`, s.C)
	b = appendFloatOmit(b, `,"r":`, s.R)
	b = appendFloatOmit(b, `,"mtbf":`, s.MTBF)
	b = appendFloatOmit(b, `,"ey":`, s.EY)
	b = appendFloatOmit(b, `,"work":`, s.Work)
	b = appendFloatOmit(b, `,"end":`, s.End)
	if s.Method != "" {
		b = appendStr(append(b, `,"method":`...), s.Method)
	}
	if s.AuthHash != "" {
		b = appendStr(append(b, `,"auth_hash":`...), s.AuthHash)
	}
	b = strconv.AppendInt(append(b, `},"num":`...), int64(j.Num), 10)
	b = output.AppendJSONFloat(append(b, `,"registered":`...), j.Registered)
	b = output.AppendJSONFloat(append(b, `,"last_checkpoint":`...), j.LastCheckpoint)
	b = output.AppendJSONFloat(append(b, `,"c_est":`...), j.CEst)
	b = strconv.AppendInt(append(b, `,"samples":`...), int64(j.Samples), 10)
	b = strconv.AppendInt(append(b, `,"checkpoints":`...), int64(j.Checkpoints), 10)
	ok := true
	if j.Lease != nil {
		if b, ok = appendLease(append(b, `,"lease":`...), j.Lease); !ok {
			return b, false
		}
	}
	if len(j.Recent) > 0 {
		b = append(b, `,"recent":[`...)
		for i := range j.Recent {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendPast(b, &j.Recent[i]); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	if j.Ended {
		b = append(b, `,"ended":true`...)
	}
	b = appendFloatOmit(b, `,"ended_at":`, j.EndedAt)
	if j.Failed {
		b = append(b, `,"failed":true`...)
	}
	return append(b, '}'), true
}

func appendLease(b []byte, l *coord.Lease) ([]byte, bool) {
	if !output.JSONPlain(l.RequestID) || !validKind(l.Kind) || !finite(l.Bytes) || !finite(l.Duration) || !finite(l.Since) ||
		!finite(l.TTL) || !finite(l.GrantedAt) || !finite(l.Share) || !finite(l.Expires) || !finite(l.Asked) {
		return b, false
	}
	b = appendStr(append(b, `{"request_id":`...), l.RequestID)
	b = appendStr(append(b, `,"kind":`...), l.Kind.String())
	b = output.AppendJSONFloat(append(b, `,"bytes":`...), l.Bytes)
	b = output.AppendJSONFloat(append(b, `,"duration":`...), l.Duration)
	b = output.AppendJSONFloat(append(b, `,"since":`...), l.Since)
	b = strconv.AppendUint(append(b, `,"seq":`...), l.Seq, 10)
	b = output.AppendJSONFloat(append(b, `,"ttl":`...), l.TTL)
	b = strconv.AppendBool(append(b, `,"granted":`...), l.Granted)
	b = appendFloatOmit(b, `,"granted_at":`, l.GrantedAt)
	if l.Token != 0 {
		b = strconv.AppendUint(append(b, `,"token":`...), l.Token, 10)
	}
	b = appendFloatOmit(b, `,"share":`, l.Share)
	b = output.AppendJSONFloat(append(b, `,"expires":`...), l.Expires)
	b = appendFloatOmit(b, `,"asked":`, l.Asked)
	return append(b, '}'), true
}

func appendPast(b []byte, p *coord.Past) ([]byte, bool) {
	if !output.JSONPlain(p.RequestID) || !output.JSONPlain(p.Outcome) || (p.Kind != 0 && !validKind(p.Kind)) || !finite(p.Asked) || !finite(p.Until) {
		return b, false
	}
	b = appendStr(append(b, `{"request_id":`...), p.RequestID)
	if p.Token != 0 {
		b = strconv.AppendUint(append(b, `,"token":`...), p.Token, 10)
	}
	b = appendStr(append(b, `,"outcome":`...), p.Outcome)
	if p.Kind != 0 {
		b = appendStr(append(b, `,"kind":`...), p.Kind.String())
	}
	b = appendFloatOmit(b, `,"asked":`, p.Asked)
	b = appendFloatOmit(b, `,"until":`, p.Until)
	return append(b, '}'), true
}

func appendMeta(b []byte, m *coord.Meta) ([]byte, bool) {
	if !finite(m.Exposure) || !finite(m.BytesGranted) || !finite(m.Now) {
		return b, false
	}
	b = strconv.AppendUint(append(b, `{"Token":`...), m.Token, 10)
	b = strconv.AppendUint(append(b, `,"Seq":`...), m.Seq, 10)
	b = strconv.AppendInt(append(b, `,"JobNum":`...), int64(m.JobNum), 10)
	b = output.AppendJSONFloat(append(b, `,"Exposure":`...), m.Exposure)
	b = strconv.AppendInt(append(b, `,"Failures":`...), int64(m.Failures), 10)
	b = strconv.AppendUint(append(b, `,"Grants":`...), m.Grants, 10)
	b = strconv.AppendUint(append(b, `,"Expiries":`...), m.Expiries, 10)
	b = strconv.AppendUint(append(b, `,"Releases":`...), m.Releases, 10)
	b = strconv.AppendUint(append(b, `,"Refused":`...), m.Refused, 10)
	b = output.AppendJSONFloat(append(b, `,"BytesGranted":`...), m.BytesGranted)
	b = appendFloatOmit(b, `,"Now":`, m.Now)
	return append(b, '}'), true
}

// validKind: k has a name (arbiter.Kind's MarshalText fails otherwise).
func validKind(k arbiter.Kind) bool { return k >= arbiter.Input && k <= arbiter.Output }

// appendStr appends s quoted (output.JSONPlain(s): json writes it so).
func appendStr(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// appendFloatOmit appends key and f unless f is zero (omitempty: -0 too).
func appendFloatOmit(b []byte, key string, f float64) []byte {
	if f == 0 {
		return b
	}
	return output.AppendJSONFloat(append(b, key...), f)
}
