package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFlagBeatsEnv(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	t.Setenv(Env, b)
	if got, err := Find(a); err != nil || got != a {
		t.Fatalf("Find(flag) = %q, %v; want %q", got, err, a)
	}
	if got, err := Find(""); err != nil || got != b {
		t.Fatalf("Find with $%s = %q, %v; want %q", Env, got, err, b)
	}
}

func TestMissingFolderNamed(t *testing.T) {
	t.Setenv(Env, filepath.Join(t.TempDir(), "nope"))
	_, err := Find("")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("err = %v", err)
	}
}

func TestPathNamesMissingFile(t *testing.T) {
	d := t.TempDir()
	t.Setenv(Env, d)
	_, err := Path("", "slant", "x.csv")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), filepath.Join(d, "slant", "x.csv")) {
		t.Fatalf("err = %v", err)
	}
	if err := os.MkdirAll(filepath.Join(d, "slant"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "slant", "x.csv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := Path("", "slant", "x.csv"); err != nil || p != filepath.Join(d, "slant", "x.csv") {
		t.Fatalf("Path = %q, %v", p, err)
	}
}

func TestBesideCheckout(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "main")
	pkg := filepath.Join(repo, "a", "b")
	data := filepath.Join(root, "shared", "data")
	for _, d := range []string{pkg, data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(Env, "")
	t.Chdir(pkg)
	if got, err := Find(""); err != nil || got != data {
		t.Fatalf("from a package folder: %q, %v; want %q", got, err, data)
	}
	// Nothing is found above the folder that holds go.mod.
	if err := os.RemoveAll(data); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(filepath.Dir(root), "shared", "data"), 0o755); err == nil {
		defer os.RemoveAll(filepath.Join(filepath.Dir(root), "shared"))
	}
	if got, err := Find(""); err == nil {
		t.Fatalf("found %q above the checkout's parent", got)
	}
}

// A missing folder is named even when no file inside it is asked for.
func TestPathWithoutFileNamesTheFolder(t *testing.T) {
	t.Setenv(Env, "")
	t.Chdir(t.TempDir()) // no shared/data above it
	_, err := Path("")
	if !errors.Is(err, ErrNotFound) || !strings.HasPrefix(err.Error(), "the data folder") {
		t.Fatalf("err = %v", err)
	}
}
