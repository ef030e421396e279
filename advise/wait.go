package advise

import "fmt"

// WaitFit accumulates (requested time, wait) pairs and fits
// wait(t) = A·t + B by least squares, online: O(1) per pair.
type WaitFit struct {
	N   float64 `json:"n"`
	SX  float64 `json:"sx"`
	SY  float64 `json:"sy"`
	SXX float64 `json:"sxx"`
	SXY float64 `json:"sxy"`
}

// Add records one job's pair; unknown waits (< 0) are ignored.
func (w *WaitFit) Add(requested, wait float64) {
	if wait < 0 || requested <= 0 {
		return
	}
	w.N++
	w.SX += requested
	w.SY += wait
	w.SXX += requested * requested
	w.SXY += requested * wait
}

// MinAlpha is the smallest slope the model uses: the seed paper's α must be
// > 0 (a log whose waits fall with the request gets a near-free request).
const MinAlpha = 1e-6

// WaitModel is wait(t) = A·t + B, seconds.
type WaitModel struct {
	A float64 `json:"a"` // seconds of wait per second requested
	B float64 `json:"b"` // seconds of wait of any job
	N int     `json:"pairs"`
}

// Model returns the least-squares line, with A raised to MinAlpha and B to
// 0 when the fit gives less; ok is false with fewer than 2 distinct
// requests.
func (w WaitFit) Model() (WaitModel, bool) {
	den := w.N*w.SXX - w.SX*w.SX
	if w.N < 2 || den <= 0 {
		return WaitModel{N: int(w.N)}, false
	}
	a := (w.N*w.SXY - w.SX*w.SY) / den
	b := (w.SY - a*w.SX) / w.N
	return WaitModel{A: max(a, MinAlpha), B: max(b, 0), N: int(w.N)}, true
}

// Wait is the modelled wait of a request of t seconds.
func (m WaitModel) Wait(t float64) float64 { return m.A*t + m.B }

func (m WaitModel) String() string {
	return fmt.Sprintf("wait = %.3g·t + %.0f s (%d pairs)", m.A, m.B, m.N)
}

// Outcome is what a sequence of reservations gives a job of length x.
type Outcome struct {
	Turnaround  float64 // waits + runs
	Submissions int
	Reserved    float64 // seconds reserved, all submissions
	Lost        float64 // seconds run in killed reservations
}

// Play runs the sequence seq (increasing) for a job of length x, with the
// requested time req as the last resort (every sequence is cut at req and
// ends with it; x ≤ req).
func Play(seq []float64, req, x float64, m WaitModel) Outcome {
	var o Outcome
	for _, t := range seq {
		if t >= req {
			break
		}
		o.Submissions++
		o.Reserved += t
		if t >= x {
			o.Turnaround += m.Wait(t) + x
			return o
		}
		o.Turnaround += m.Wait(t) + t
		o.Lost += t
	}
	o.Submissions++
	o.Reserved += req
	o.Turnaround += m.Wait(req) + x
	return o
}
