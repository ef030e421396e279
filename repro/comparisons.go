package repro

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ckpt-hpc/ckpt/output"
)

// ComparisonRow is one row of a reproduction's comparisons.csv as written
// by WriteComparisons: the numbers with the file's 6 significant digits,
// null in JSON where the paper gives none. A slice of them is the JSON
// that `ckpt repro --json` prints.
type ComparisonRow struct {
	Experiment string        `json:"experiment"`
	Quantity   string        `json:"quantity"`
	Paper      output.Number `json:"paper"`
	Ours       output.Number `json:"ours"`
	Diff       output.Number `json:"diff"`
	RelDiff    output.Number `json:"rel_diff"`
	Note       string        `json:"note"`
}

// ReadComparisons reads dir/comparisons.csv, the result of a reproduction
// run into dir. An empty cell is NaN.
func ReadComparisons(dir string) ([]ComparisonRow, error) {
	path := filepath.Join(dir, "comparisons.csv")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	num := func(s string) output.Number {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return output.Number(math.NaN())
		}
		return output.Number(v)
	}
	out := []ComparisonRow{}
	for i, r := range recs {
		if i == 0 {
			continue
		}
		if len(r) != 7 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 7", path, i+1, len(r))
		}
		out = append(out, ComparisonRow{r[0], r[1], num(r[2]), num(r[3]), num(r[4]), num(r[5]), r[6]})
	}
	return out, nil
}
