package advise

import (
	"os"
	"testing"
)

// BenchmarkAsk answers from a model file given by CKPT_ADVISE_MODEL.
func BenchmarkAsk(b *testing.B) {
	path := os.Getenv("CKPT_ADVISE_MODEL")
	if path == "" {
		b.Skip("set CKPT_ADVISE_MODEL to a model file")
	}
	q := Query{Who: Who{User: "98", Group: "198"}, Nodes: 1, Requested: 30000}
	if u := os.Getenv("CKPT_ADVISE_USER"); u != "" {
		q = Query{Who: Who{User: u}, Nodes: 1}
	}
	for b.Loop() {
		if _, err := Ask(path, q); err != nil {
			b.Fatal(err)
		}
	}
}
