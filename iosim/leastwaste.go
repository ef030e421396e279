package iosim

// Least-Waste (Section III-E): the token goes to the request of least
// expected waste (arbiter.LeastWaste); checkpoints are non-blocking.

func leastWaste(float64) Strategy {
	return withPolicy("least-waste", "least-waste", Daly{})
}

func leastWastePrinted(float64) Strategy {
	return withPolicy("least-waste-printed", "least-waste-printed", Daly{})
}

// leastWasteFixed is Least-Waste with a Fixed period. The paper's
// footnote calls it of little sense (Least-Waste is designed around Daly
// periods), but its 1-hour result file (sim/figures/1h-ckpt-cielo.csv of
// the paper's repository) has it, and Figs. 2–3's 1-hour panels plot it.
func leastWasteFixed(p float64) Strategy {
	return withPolicy("least-waste-fixed", "least-waste", Fixed(p))
}
