package capacity

import (
	"strings"
	"testing"
)

const stateJSON = `{"p_min":2,"p_max":10,"delta":2,"p":8,"length":100,
 "jobs":[{"p":3,"c":10,"r":10,"status":"running","yield":0.5},
         {"p":4,"c":12,"r":12,"status":"idle","work":5,"avail":50}]}`

func TestReadState(t *testing.T) {
	st, err := ReadState(strings.NewReader(stateJSON), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if st.P != 8 || st.Keep(st.P) != 6 || st.Status[0] != Running || st.Yield(0) != 0.5 || st.Yield(1) != 0.1 {
		t.Fatalf("%+v", st)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"delta":2`, `"delta":-2`, "delta"},
		{`"p_min":2`, `"p_min":12`, "p_min"},
		{`"length":100`, `"length":-1`, "length"},
		{`{"p":4,`, `{"p":40,`, "wider than p_max"},
		{`"status":"idle"`, `"status":"done"`, "status"},
		{`"yield":0.5`, `"yield":-1`, "yield"},
		{`"p":8,`, `"p":8,"extra":1,`, "extra"},
		{`"p_max":10`, `"p_max":10000000`, "p_max"},
		{`"p":8,`, ``, "missing field \"p\""},
	} {
		_, err := ReadState(strings.NewReader(strings.Replace(stateJSON, c.from, c.to, 1)), "s.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "s.json") {
			t.Errorf("%s → %s: got %v, want %q", c.from, c.to, err, c.want)
		}
	}
}

// FuzzReadState: no input panics, every accepted state gets a plan from
// each algorithm that the validator accepts (or a clean error), and a
// decision's useful work and goodput are finite, in [0, P·T] and [0, 1].
func FuzzReadState(f *testing.F) {
	f.Add(stateJSON)
	f.Add(`{"p_min":0,"p_max":3,"delta":3,"p":3,"length":1,"jobs":[{"p":3,"c":0.5,"r":0.5,"status":"checkpointed","yield":0}]}`)
	f.Add(strings.Replace(stateJSON, `"yield":0.5`, `"yield":0.9,"work":0`, 1))
	f.Add(strings.Replace(stateJSON, `,"yield":0.5`, ``, 1))
	f.Add(strings.Replace(stateJSON, `"p":8,`, `"p":8,"p":9,`, 1))
	// p = 0 (p_min = 0): the goodput was 0/0 = NaN.
	f.Add(`{"p_min":0,"p_max":7,"delta":1,"p":0,"length":1,"jobs":[{"p":1,"c":0.1,"r":0.1,"status":"checkpointed","yield":0}]}`)
	f.Add(`{"p_min":0,"p_max":3,"delta":3,"p":3,"length":1,"jobs":[{"p":3,"c":0.5,"r":0.5,"status":"idle","yield":0,"status":"idle"},{},[]]}`)
	algos := []Algorithm{&GreedyGoodput{}, &GreedyYield{}, &DPGoodput{BestCnf: true}, &DPGoodputSlow{}, &DPYield{}, &DPBiC{X: 3}, &TargetGoodput{G: 0.5}}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ReadState(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		if d, err := Decide(st, "dp-goodput"); err == nil {
			if !(d.Gain >= 0 && d.Gain <= float64(st.P)*st.T*(1+1e-9)) || !(d.Goodput >= 0 && d.Goodput <= 1+1e-9) {
				t.Fatalf("gain %v, goodput %v out of range\nstate %s", d.Gain, d.Goodput, s)
			}
		}
		if st.PMax > 64 || len(st.Jobs) > 12 {
			return // keep the slow DP cheap
		}
		for _, a := range algos {
			pl, err := a.Plan(st)
			if err != nil {
				continue
			}
			if _, err := Validate(st, pl); err != nil {
				t.Fatalf("%s: invalid plan: %v\nstate %s", a.Name(), err, s)
			}
		}
	})
}
