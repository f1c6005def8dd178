// SPDX-License-Identifier: MIT
//
// Quiescence: one NIC model stepped cycle by cycle, not evaluated while it is at a fixed point.
// Internal to the harness (C++); docs/sim-speed.md tells why and how much it saves.
//
// When a whole cycle (the same inputs driven again, rising and falling edge) leaves every bit of
// a model's state as it was, the model is at a fixed point: as long as its inputs stay the same,
// every later cycle would compute that same state again, with the same outputs and the same
// (passing) assertions. Such a model is not evaluated until its inputs change; its host side
// (handshakes, timers, memory) still runs every cycle on the unchanged outputs. Nothing
// observable changes: an idle NIC, a NIC waiting for a DMA read to come back or for the host
// simply costs no model evaluation.
//
// Finding the fixed point (probe, after each evaluated cycle): once the inputs repeat, the
// outputs did not change and the head of the state (Model::same_head) did not either, take a
// snapshot of the state; if the next cycle with the same inputs leaves the state equal to it,
// the model is quiet. A probe that finds the model still working waits twice as long before the
// next one (up to kMaxProbeBackoff cycles). The verified fixed point is kept with its inputs: a
// model woken from it by a passing input change (typically the microsecond tick) that leaves its
// state unchanged is back at it as soon as those inputs are driven again (rewake).
//
// Contract, per cycle, in this order (the world does it for every NIC at once; another front
// end for its one model):
//   sample()        the outputs that decide this edge's handshakes: `out` (a quiet model's
//                   outputs are the ones sampled last, which is what it drives)
//   rise(in, t)     the rising edge with the inputs `in` (skipped at a fixed point with the
//                   same inputs); false only in check mode, when a quiet model's cycle changed
//                   its state or failed an assertion (the caller stops the run). `in` stays
//                   where it is, unchanged, until fall() (which records it as driven)
//   [the caller checks its context for failed assertions]
//   fall(t)         the falling edge, and the probe
// Settings: skip (evaluate every cycle when false, e.g. while tracing: the waveform keeps every
// edge) and check (NDK_SIM_SKIP_QUIET=check: evaluate quiet models anyway and compare every byte
// of their state; a self-test of the mechanism).
#ifndef QUIESCENCE_H
#define QUIESCENCE_H

#include <cstdint>
#include <memory>
#include <utility>

#include "nic_model.h"

namespace nicsim_hw
{

class QuiescentModel {
    public:
	static constexpr unsigned kMaxProbeBackoff = 64;

	QuiescentModel(std::unique_ptr<Model> model, bool skip, bool check)
		: model_(std::move(model))
		, skip_(skip)
		, check_(check)
	{
	}

	Model &model()
	{
		return *model_;
	}
	bool quiet() const
	{
		return quiet_;
	}
	// cycles the model was evaluated in (the rest were skipped at a fixed point)
	uint64_t evals() const
	{
		return evals_;
	}
	// the outputs as sampled last, and the ones of the cycle before
	Outputs out{};
	Outputs out_before{};

	// Reset: drive `in` and evaluate the falling edge only (the first cycle of a model).
	void start(const Inputs &in)
	{
		model_->drive(in);
		model_->edge(false);
		driven_ = in;
	}

	void sample()
	{
		if (!quiet_) {
			out_before = out;
			model_->sample(out);
		}
	}

	__attribute__((always_inline)) bool rise(const Inputs &in, uint64_t trace_time)
	{
		evaluated_ = false;
		const bool same = same_inputs(in, driven_);
		if (quiet_ && same && check_) {
			model_->drive(in);
			model_->edge(true);
			model_->edge(false);
			return !model_->got_error() && model_->same_as_whole();
		}
		if (quiet_) {
			if (same)
				return true; // still at its fixed point: nothing to evaluate
			// new inputs: the edges skipped meanwhile changed no state (fixed point)
			quiet_ = false;
			// a microsecond tick is gone again after two evals (its own, and the cycle
			// after it, which registers its end)
			rewake_ = 2;
		}
		model_->drive(in);
		model_->edge(true);
		model_->trace_dump(trace_time);
		evaluated_ = true;
		evals_++;
		same_ = same;
		pending_in_ = &in;
		return true;
	}

	void fall(uint64_t trace_time)
	{
		if (!evaluated_)
			return;
		model_->edge(false);
		model_->trace_dump(trace_time);
		driven_ = *pending_in_;
		if (skip_)
			probe(same_);
	}

    private:
	void probe(bool same);
	void probe_failed();
	void enter_quiet();

	std::unique_ptr<Model> model_;
	bool skip_, check_;
	// the inputs last driven, whether the model is at a fixed point for them, and the probing
	// that finds out
	Inputs driven_{};
	const Inputs *pending_in_ = nullptr; // what rise() drove, recorded as driven_ by fall()
	bool quiet_ = false;
	bool snap_valid_ = false;    // a snapshot was taken after the last eval, inputs unchanged
	unsigned probe_wait_ = 0;    // cycles before the next snapshot
	unsigned probe_backoff_ = 1; // doubles after each probe that finds the model still busy
	// The snapshot holds a verified fixed point for the inputs snap_in_ (set when a probe found
	// one, cleared when another snapshot replaces it).
	bool snap_fixed_ = false;
	Inputs snap_in_{};
	unsigned rewake_ = 0;
	bool evaluated_ = false; // in this cycle
	uint64_t evals_ = 0;
	bool same_ = false; // ... with the inputs of the cycle before
};

} // namespace nicsim_hw

#endif // QUIESCENCE_H
