package runner

import "math"

// Product lists every combination of indices of axes with the given
// sizes, row-major: the first axis varies slowest, the last fastest.
// Product(2, 3) is [0 0] [0 1] [0 2] [1 0] [1 1] [1 2]. A size of zero or
// less, or sizes whose product overflows an int, give no combinations; no
// sizes give one empty combination.
func Product(sizes ...int) [][]int {
	n := 1
	for _, s := range sizes {
		if s <= 0 || n > math.MaxInt/s {
			return nil
		}
		n *= s
	}
	out := make([][]int, n)
	cur := make([]int, len(sizes))
	for i := range out {
		out[i] = append([]int(nil), cur...)
		for d := len(sizes) - 1; d >= 0; d-- {
			cur[d]++
			if cur[d] < sizes[d] {
				break
			}
			cur[d] = 0
		}
	}
	return out
}

// Grid2 returns f(a, b) for every a in as and b in bs, a varying slowest:
// the Cartesian grid of two parameters as sweep points.
func Grid2[A, B, P any](as []A, bs []B, f func(A, B) P) []P {
	out := make([]P, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			out = append(out, f(a, b))
		}
	}
	return out
}

// Grid3 is Grid2 for three parameters, a varying slowest and c fastest.
func Grid3[A, B, C, P any](as []A, bs []B, cs []C, f func(A, B, C) P) []P {
	out := make([]P, 0, len(as)*len(bs)*len(cs))
	for _, a := range as {
		for _, b := range bs {
			for _, c := range cs {
				out = append(out, f(a, b, c))
			}
		}
	}
	return out
}
