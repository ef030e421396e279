package iosim

// Ordered (Section III-B): one transfer at a time at full bandwidth, FCFS;
// a job waiting for the token (for any transfer, checkpoints included) is
// blocked.

func orderedFixed(p float64) Strategy {
	return Strategy{Name: "ordered-fixed", Sharing: Token, Arbiter: FCFS{}, Period: Fixed(p)}
}

func orderedDaly(float64) Strategy {
	return Strategy{Name: "ordered-daly", Sharing: Token, Arbiter: FCFS{}, Period: Daly{}}
}
