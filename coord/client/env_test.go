package client

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/usage"
)

// The URL is the argument, else $CKPT_COORD_URL, else DefaultURL; the
// token the token file's first, else $CKPT_COORD_TOKEN.
func TestFromEnv(t *testing.T) {
	t.Setenv("CKPT_COORD_URL", "")
	t.Setenv("CKPT_COORD_TOKEN", "from-env")
	cl, err := FromEnv("", "", 0)
	if err != nil || cl.Base != DefaultURL || cl.Token != "from-env" || Named("") {
		t.Fatalf("%+v %v", cl, err)
	}
	t.Setenv("CKPT_COORD_URL", "http://10.0.0.5:7070")
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("# c\nabcdefghijklmnopq\nzyxwvutsrqponmlkj\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cl, err = FromEnv("", file, 0); err != nil || cl.Base != "http://10.0.0.5:7070" || cl.Token != "abcdefghijklmnopq" || !Named("") {
		t.Fatalf("%+v %v", cl, err)
	}
	if cl, err = FromEnv("https://c:1", "", 0); err != nil || cl.Base != "https://c:1" {
		t.Fatalf("%+v %v", cl, err)
	}
	_, err = FromEnv("", filepath.Join(t.TempDir(), "none"), 0)
	if !usage.Is(err) || !strings.HasPrefix(err.Error(), "--token-file: ") {
		t.Fatalf("missing token file: %v", err)
	}
}

// Only the coordinator's refusal of an invalid value becomes a usage
// error, with the same message.
func TestRefused(t *testing.T) {
	inv := &Error{Status: 400, Code: api.CodeInvalid, Field: "method", Msg: "bad"}
	if err := Refused(inv); !usage.Is(err) || err.Error() != inv.Error() || !errors.Is(err, inv) {
		t.Fatalf("%v", err)
	}
	other := &Error{Status: 409, Msg: "conflict"}
	if err := Refused(other); usage.Is(err) || err != error(other) {
		t.Fatalf("%v", err)
	}
	if Refused(nil) != nil {
		t.Fatal("nil refused")
	}
}

// RegisterIn refuses what the coordinator would, before sending, naming
// the flag: --ey NaN (JSON has no NaN: it was "json: unsupported value",
// a runtime error) and --method ey without the job's work (it was
// registered, then every next refused). The server refuses the latter
// too (400, work_s).
func TestRegisterInRefusesBeforeSending(t *testing.T) {
	var asked atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked.Add(1); w.Write([]byte(`{}`)) }))
	defer ts.Close()
	cl := &Client{Base: ts.URL}
	ok := api.RegisterRequest{ID: "j", Nodes: 1, Bytes: 1e9}
	for flag, req := range map[string]api.RegisterRequest{
		"--ey":    {ID: "j", Nodes: 1, Bytes: 1e9, EY: math.NaN()},
		"--mtbf":  {ID: "j", Nodes: 1, Bytes: 1e9, MTBF: math.Inf(1)},
		"--size":  {ID: "j", Nodes: 1},
		"--work":  {ID: "j", Nodes: 1, Bytes: 1e9, EY: 2, Method: "ey"},
		"--nodes": {ID: "j", Nodes: 0, Bytes: 1e9},
	} {
		_, err := cl.RegisterIn(context.Background(), req, 0)
		if !usage.Is(err) || !strings.HasPrefix(err.Error(), flag+": ") {
			t.Errorf("%s: %v", flag, err)
		}
	}
	if asked.Load() != 0 {
		t.Errorf("%d requests sent", asked.Load())
	}
	ok.Method, ok.EY = "ey", 2
	if _, err := cl.RegisterIn(context.Background(), ok, 3600); err != nil || asked.Load() != 1 {
		t.Errorf("ey with an allocation end: %v, %d requests", err, asked.Load())
	}
	_, url := startServer(t, "ordered", 30)
	_, err := (&Client{Base: url, Token: "tok"}).Register(context.Background(), api.RegisterRequest{ID: "e", Nodes: 1, Bytes: 1e9, EY: 2, Method: "ey", JobToken: NewJobToken()})
	var e *Error
	if !errors.As(err, &e) || e.Status != 400 || e.Code != api.CodeInvalid || e.Field != "work_s" {
		t.Errorf("server: %v", err)
	}
}
