package iosim

// eventKind names what an event of a run did, for the tests' count of
// events by kind (countEvents): which kinds grow faster than the platform,
// and which change nothing.
type eventKind int

const (
	evFailFree    eventKind = iota // a node failure on a free node
	evFailJob                      // a node failure that kills a job
	evStopEnd                      // a compute stop at the end of the work
	evStopCkpt                     // a compute stop at a checkpoint's due date
	evStopIO                       // a compute stop for regular I/O
	evStopReplan                   // a compute stop that only plans the next
	evTransferEnd                  // a transfer's completion
	evPassEmpty                    // (not an event) a scheduler pass that started nothing
	evPassStart                    // (not an event) a scheduler pass that started a job
	nEventKinds
)

// countEvents, set by tests alone, makes every run add its events by kind
// to it (no run counts when nil).
var countEvents *[nEventKinds]uint64

// count adds one event of kind k to countEvents.
func (s *simulator) count(k eventKind) {
	if countEvents != nil {
		countEvents[k]++
	}
}
