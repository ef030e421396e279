package repro

import "embed"

//go:embed */FINDINGS.md
var findings embed.FS

// Findings returns the FINDINGS.md text of the reproduction in the
// sub-package dir (e.g. "reservation"), built into the binary so that
// `ckpt report` can show it beside results folders written anywhere.
func Findings(dir string) (string, bool) {
	b, err := findings.ReadFile(dir + "/FINDINGS.md")
	return string(b), err == nil
}
