package runner

import (
	"context"
	"errors"
	"testing"
)

func TestDryRunChecksArgumentsAndRunsNothing(t *testing.T) {
	ctx := DryRun(context.Background())
	called := false
	fn := func(context.Context, Item[int]) (int, error) { called = true; return 0, nil }
	if err := Run(ctx, Options{Workers: 1}, []int{1, 2, 3}, 1, fn, nil); !errors.Is(err, ErrDryRun) {
		t.Fatalf("dry run: %v, want ErrDryRun", err)
	}
	if called {
		t.Fatal("a dry run ran an item")
	}
	// Bad arguments are still refused first, as in a real run.
	if err := Run(ctx, Options{Workers: 1}, []int{1}, 0, fn, nil); err == nil || errors.Is(err, ErrDryRun) {
		t.Fatalf("reps 0 under a dry run: %v, want the argument error", err)
	}
	if err := Run(context.Background(), Options{Workers: 1}, []int{1}, 1, fn, nil); err != nil || !called {
		t.Fatalf("a real run after: err %v, called %v", err, called)
	}
}
