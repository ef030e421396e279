package runner

import (
	"fmt"
	"math"
	"testing"

	"pgregory.net/rapid"
)

func TestProductSmall(t *testing.T) {
	got := fmt.Sprint(Product(2, 3))
	if want := "[[0 0] [0 1] [0 2] [1 0] [1 1] [1 2]]"; got != want {
		t.Fatalf("Product(2, 3) = %s, want %s", got, want)
	}
	if got := Product(); len(got) != 1 || len(got[0]) != 0 {
		t.Fatalf("Product() = %v", got)
	}
	if Product(3, 0) != nil || Product(-1) != nil || Product(1<<40, 1<<40) != nil {
		t.Fatal("empty or overflowing product not nil")
	}
	g := Grid2([]string{"a", "b"}, []int{1, 2, 3}, func(s string, i int) string { return fmt.Sprint(s, i) })
	if fmt.Sprint(g) != "[a1 a2 a3 b1 b2 b3]" {
		t.Fatalf("Grid2 = %v", g)
	}
	g3 := Grid3([]int{1, 2}, []int{3}, []int{4, 5}, func(a, b, c int) int { return 100*a + 10*b + c })
	if fmt.Sprint(g3) != "[134 135 234 235]" {
		t.Fatalf("Grid3 = %v", g3)
	}
}

// Product's i-th tuple is the mixed-radix digits of i, most significant
// first.
func TestProductIsMixedRadixCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sizes := rapid.SliceOfN(rapid.IntRange(1, 5), 0, 4).Draw(t, "sizes")
		got := Product(sizes...)
		n := 1
		for _, s := range sizes {
			n *= s
		}
		if len(got) != n {
			t.Fatalf("len %d, want %d", len(got), n)
		}
		for i, tup := range got {
			rest := i
			for d := len(sizes) - 1; d >= 0; d-- {
				if tup[d] != rest%sizes[d] {
					t.Fatalf("tuple %d = %v", i, tup)
				}
				rest /= sizes[d]
			}
		}
	})
}

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
