package client

import (
	"cmp"
	"context"
	"errors"
	"os"
	"time"

	"github.com/ckpt-hpc/ckpt/coord"
	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/usage"
)

// DefaultURL is the coordinator's URL when neither the command line nor
// $CKPT_COORD_URL names one.
const DefaultURL = "http://127.0.0.1:7070"

// Named reports whether a coordinator is named: by url (the command
// line's --server) or by $CKPT_COORD_URL.
func Named(url string) bool { return url != "" || os.Getenv("CKPT_COORD_URL") != "" }

// FromEnv is the client of `ckpt coord`: the coordinator at url, else
// $CKPT_COORD_URL, else DefaultURL; the bearer token is the first of
// tokenFile (see api.ReadTokenFile), else $CKPT_COORD_TOKEN; each request
// bounded by timeout (Client.Timeout, --timeout). A bad token file is a
// usage error naming --token-file.
func FromEnv(url, tokenFile string, timeout time.Duration) (*Client, error) {
	tok := os.Getenv("CKPT_COORD_TOKEN")
	if tokenFile != "" {
		toks, err := api.ReadTokenFile(tokenFile)
		if err != nil {
			return nil, usage.Fieldf("--token-file", "%v", err)
		}
		tok = toks[0]
	}
	if url == "" {
		url = os.Getenv("CKPT_COORD_URL")
	}
	if url == "" {
		url = DefaultURL
	}
	c, err := New(url, tok)
	if c != nil {
		c.Timeout = timeout
	}
	return c, err
}

// Refused marks the coordinator's refusal of an invalid value
// (api.CodeInvalid) as a usage error: the value was the caller's input,
// a command-line flag in `ckpt coord`. Other errors are returned as is.
func Refused(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Code == api.CodeInvalid {
		return usage.Wrap(err)
	}
	return err
}

// RegisterIn registers the job of req whose allocation ends endIn seconds
// from now (0: unknown), with a new job token if req has none; the answer
// carries the token. A spec the coordinator would refuse
// (coord.JobSpec.ValidateNew) is refused before sending, as a usage error
// naming the flag of `ckpt coord register` (--ey NaN cannot even be sent:
// JSON has no NaN).
func (c *Client) RegisterIn(ctx context.Context, req api.RegisterRequest, endIn float64) (api.RegisterResponse, error) {
	if req.JobToken == "" {
		req.JobToken = NewJobToken()
	}
	now := float64(time.Now().UnixNano()) / 1e9
	if endIn > 0 {
		req.End = now + endIn
	}
	if err := req.Spec().ValidateNew(now); err != nil {
		var e *coord.Error
		if errors.As(err, &e) && e.Field != "" {
			err = usage.Fieldf("--"+cmp.Or(registerFlags[e.Field], e.Field), "%s", e.Msg)
		}
		return api.RegisterResponse{JobToken: req.JobToken}, usage.Wrap(err)
	}
	res, err := c.Register(ctx, req)
	res.JobToken = req.JobToken
	return res, err
}

// registerFlags are the flags of `ckpt coord register` named otherwise
// than the core's JobSpec fields they set.
var registerFlags = map[string]string{"bytes": "size", "c": "ckpt", "r": "restart", "end": "end-in"}

// ForJob is FromEnv for a `ckpt coord` verb acting for job id (--id,
// required) whose own token is *jobToken (--job-token), else
// $CKPT_JOB_TOKEN, which *jobToken then holds; needJob requires one.
func ForJob(url, tokenFile, id string, jobToken *string, needJob bool, timeout time.Duration) (*Client, error) {
	if id == "" {
		return nil, usage.Errorf("--id: required")
	}
	if *jobToken == "" {
		*jobToken = os.Getenv("CKPT_JOB_TOKEN")
	}
	if needJob && *jobToken == "" {
		return nil, usage.Errorf("--job-token: required (or $CKPT_JOB_TOKEN)")
	}
	return FromEnv(url, tokenFile, timeout)
}
