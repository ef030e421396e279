package client

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/coord/api"
	"github.com/ckpt-hpc/ckpt/usage"
)

// The URL is the argument, else $CKPT_COORD_URL, else DefaultURL; the
// token the token file's first, else $CKPT_COORD_TOKEN.
func TestFromEnv(t *testing.T) {
	t.Setenv("CKPT_COORD_URL", "")
	t.Setenv("CKPT_COORD_TOKEN", "from-env")
	cl, err := FromEnv("", "")
	if err != nil || cl.Base != DefaultURL || cl.Token != "from-env" || Named("") {
		t.Fatalf("%+v %v", cl, err)
	}
	t.Setenv("CKPT_COORD_URL", "http://10.0.0.5:7070")
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("# c\nabcdefghijklmnopq\nzyxwvutsrqponmlkj\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cl, err = FromEnv("", file); err != nil || cl.Base != "http://10.0.0.5:7070" || cl.Token != "abcdefghijklmnopq" || !Named("") {
		t.Fatalf("%+v %v", cl, err)
	}
	if cl, err = FromEnv("https://c:1", ""); err != nil || cl.Base != "https://c:1" {
		t.Fatalf("%+v %v", cl, err)
	}
	_, err = FromEnv("", filepath.Join(t.TempDir(), "none"))
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
