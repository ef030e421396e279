package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestNumberNullRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	in := struct {
		A Number   `json:"a"`
		B Number   `json:"b"`
		C []Number `json:"c"`
	}{Number(math.NaN()), 1.5, Numbers([]float64{math.Inf(1), -2})}
	if err := WriteJSON(&buf, in); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back["a"] != nil || back["b"] != 1.5 {
		t.Fatalf("got %v", back)
	}
	c := back["c"].([]any)
	if c[0] != nil || c[1] != -2.0 {
		t.Fatalf("c = %v", c)
	}
	var n Number
	if err := json.Unmarshal([]byte("null"), &n); err != nil || !math.IsNaN(float64(n)) {
		t.Fatalf("null → %v, %v", n, err)
	}
}

func TestWriteJSONRefusesPlainNaN(t *testing.T) {
	if err := WriteJSON(&bytes.Buffer{}, map[string]float64{"x": math.NaN()}); err == nil {
		t.Fatal("plain NaN encoded")
	}
}

type failing struct{ after int }

func (f *failing) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("no space left on device")
	}
	f.after--
	return len(p), nil
}

func TestWriterKeepsFirstError(t *testing.T) {
	w := NewWriter(&failing{after: 1})
	w.Printf("ok %d\n", 1)
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	w.Println("lost")
	w.Println("also lost")
	if w.Err() == nil || w.Err().Error() != "no space left on device" {
		t.Fatalf("Err = %v", w.Err())
	}
}

// Numbers converts a slice of float64 to Numbers.
func Numbers(v []float64) []Number {
	out := make([]Number, len(v))
	for i, f := range v {
		out[i] = Number(f)
	}
	return out
}
