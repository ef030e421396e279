// Package optimize holds ckpt's one-dimensional searches shared by the
// capabilities: today the golden-section search (Kiefer, "Sequential
// minimax search for a maximum", Proc. AMS 4, 1953), which narrows a
// bracket of a unimodal function by the ratio φ−1 = (√5−1)/2 per step and
// reuses one interior value per step.
//
// The papers use it as a building block: the fixed-period refinement of
// the SC'13 cloud paper's best period (package interval, BestFixed), the
// Lagrangian multiplier of the capacity planner's pruning bound (package
// capacity) and the dual of the cooperative-I/O fraction bound (package
// iosim). The search itself is in no paper; the step rule, tie rule and
// stopping rule are spelled out on Golden so that a caller's results do
// not depend on how the search is written.
//
// Complexity: Golden.Minimize and Golden.Maximize evaluate the function at
// most Steps+2 times, in O(Steps) time besides the evaluations and O(1)
// memory.
package optimize
