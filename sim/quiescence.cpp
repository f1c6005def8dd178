// SPDX-License-Identifier: MIT
//
// Quiescence (quiescence.h): the probe that finds a model's fixed point. The per-cycle steps
// (sample, rise, fall) are in the header, so the world's cycle loop inlines them.

#include "quiescence.h"

namespace nicsim_hw
{

// A probe that finds the model still changing (or sees its inputs change before it could
// compare) makes the next one wait twice as long.
void QuiescentModel::probe_failed()
{
	probe_wait_ = probe_backoff_;
	if (probe_backoff_ < kMaxProbeBackoff)
		probe_backoff_ *= 2;
}

// The model's state is the snapshot's, a fixed point for the inputs it was just driven with:
// skip it from now on, and remember the fixed point for a model woken from it (rewake).
void QuiescentModel::enter_quiet()
{
	if (check_) // every byte, for the self-test in rise()
		model_->snapshot_whole();
	quiet_ = true;
	snap_valid_ = false;
	snap_fixed_ = true;
	snap_in_ = driven_;
	probe_backoff_ = 1;
	rewake_ = 0;
}

// After each eval: take a snapshot once the inputs repeat, compare with it after the next cycle
// with the same inputs.
void QuiescentModel::probe(bool same)
{
	// the head of the state (the model's narrow signals), compared with and recorded after
	// every eval: did this cycle leave it unchanged?
	const bool head_same = model_->same_head();
	model_->record_head();
	if (rewake_) {
		rewake_--;
		// the fixed point's inputs again and its state again: back at the fixed point, with no
		// snapshot to take (a state that differs mostly differs early, so memcmp stops soon)
		if (snap_fixed_ && same_inputs(driven_, snap_in_) && model_->same_as_snapshot()) {
			enter_quiet();
			return;
		}
	}
	if (!same) { // new inputs: a fixed point needs two evals with the same ones
		if (snap_valid_)
			probe_failed();
		snap_valid_ = false;
		return;
	}
	if (snap_valid_) {
		snap_valid_ = false;
		if (model_->same_as_snapshot()) {
			enter_quiet();
		} else {
			probe_failed();
		}
		return;
	}
	if (probe_wait_) {
		probe_wait_--;
		return;
	}
	// A model at a fixed point drives the same outputs cycle after cycle: while they still
	// change, the state does too, and the snapshot (tens of KiB) would be wasted. A cheap
	// necessary condition, not a decision: the state compare still decides.
	if (!same_outputs(out, out_before))
		return;
	// Likewise for the head of the state: a copy of the whole state is taken only once a
	// cycle left the narrow signals unchanged. Most probes of a busy model stop here, at the
	// cost of a 1 KiB compare and copy per eval instead of a copy of the whole state.
	if (!head_same)
		return;
	model_->snapshot();
	snap_valid_ = true;
	snap_fixed_ = false;
}

} // namespace nicsim_hw
