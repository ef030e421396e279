package advise

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzModelFile feeds arbitrary bytes as a model file to Ask and ReadModel:
// they must answer or refuse, never panic or hang.
func FuzzModelFile(f *testing.F) {
	dir := f.TempDir()
	e := NewEngine(DefaultParams())
	e.Feed(synthLog(3, 300).Jobs, true, nil)
	good := filepath.Join(dir, "good")
	if err := e.WriteModel(good); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(good)
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(`{"format":"ckpt-advise-model/1","params":{"min_runs":1,"window":1,"min_wait_pairs":2}}` + "\n" + `{"k":"6 ua","x":[1e308,-5],"censored":[9]}` + "\n"))
	f.Add([]byte("hello\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "m")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, q := range []Query{{Who: Who{User: "a", Group: "g", App: "p"}, Nodes: 2, Requested: 7200}, {Who: Who{User: "a"}}} {
			if a, err := Ask(path, q); err == nil && a.Time < 0 {
				t.Fatalf("negative advice %+v", a)
			}
		}
		ReadModel(path)
	})
}
