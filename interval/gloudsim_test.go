package interval

import (
	"math"
	"testing"
)

// By hand: segments 60, 10, 30 (two failures), period 25, C = 2. First
// segment: ⌈60/25⌉ − 1 = 2 periods saved (50), second ⌈10/25⌉ − 1 = 0,
// last 30: W = 80, Tw = 100 + ⌊80/25⌋·2 = 106.
func TestReplayGloudSimByHand(t *testing.T) {
	w, tw := ReplayGloudSim(25, 2, []float64{60, 10, 30})
	if w != 80 || tw != 106 {
		t.Errorf("W = %v, Tw = %v, want 80 and 106", w, tw)
	}
	// An exact multiple saves one period less: ⌈50/25⌉ − 1 = 1.
	if w, _ := ReplayGloudSim(25, 2, []float64{50, 5}); w != 30 {
		t.Errorf("W = %v, want 30", w)
	}
	if w, tw := ReplayGloudSim(0, 2, []float64{60, 10}); w != 70 || tw != 70 {
		t.Errorf("no checkpoint: %v %v", w, tw)
	}
	if p := GloudSimPeriod(true, 18, 2, 2, math.NaN()); p != 6 {
		t.Errorf("Formula (3) period %v, want 6", p)
	}
	if p := GloudSimPeriod(true, 10, 2, 0.1, math.NaN()); p != 0 {
		t.Errorf("x* < 1: period %v, want 0", p)
	}
	if p := GloudSimPeriod(false, 10, 2, 0, 100); p != 20 {
		t.Errorf("Young period %v, want 20", p)
	}
}
