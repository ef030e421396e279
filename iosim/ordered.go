package iosim

// Ordered (Section III-B): one transfer at a time at full bandwidth, FCFS;
// a job waiting for the token (for any transfer, checkpoints included) is
// blocked.

func orderedFixed(p float64) Strategy {
	return withPolicy("ordered-fixed", "ordered", Fixed(p))
}

func orderedDaly(float64) Strategy {
	return withPolicy("ordered-daly", "ordered", Daly{})
}
